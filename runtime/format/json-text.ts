// JSON-text fields (`translations`: a JSON object as text) are served as JSON strings, so each `"`
// of the text is escaped on the way out (`"{\"de\":…}"`): ~40 escapes in a city's ~400 bytes,
// which a byte loop pays on every answer (about half of writing a Full-tier city list). The
// snapshot therefore stores such a field as its JSON string literal without the quotes, escapes
// applied once at build; the row writer copies it as it is, and the record decoder (a slow path)
// undoes the escapes. Shared by build-index (storedJsonText) and the runtime (jsonTextFromStored).

/** What the snapshot stores for `text`: JSON.stringify(text) without its surrounding quotes. */
export function storedJsonText(text: string | null): string | null {
  if (text === null) return null;
  const literal = JSON.stringify(text);
  return literal.slice(1, literal.length - 1);
}

/** The text whose stored form is `stored` (storedJsonText's inverse). */
export function jsonTextFromStored(stored: string | null): string | null {
  if (stored === null) return null;
  // A stored form without a backslash is the text itself (JSON.stringify escaped nothing).
  return stored.includes('\\') ? (JSON.parse(`"${stored}"`) as string) : stored;
}
