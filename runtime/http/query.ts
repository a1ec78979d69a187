// Strict parsing of the raw query string and of path parameters. Anything ambiguous is refused
// with a message the client can act on, instead of being guessed at: duplicate names, malformed
// percent-encoding, bytes that are not UTF-8, control characters (raw or decoded), over-long
// queries. In queries `+` decodes to a space (form encoding; the phone parse relies on it); in
// paths `+` is a literal plus.

/** Longest raw query accepted (the largest legitimate one, a postcode cursor plus filters, is far below). */
export const MAX_QUERY_LENGTH = 4096;
/** Longest name echoed back in an error message. */
const MAX_NAME_IN_MESSAGE = 64;

export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QueryError';
  }
}

const EMPTY: ReadonlyMap<string, string> = new Map();
// uWS turns bytes that are not UTF-8 into U+FFFD, so a raw U+FFFD means the request held invalid bytes.
const REPLACEMENT = '\uFFFD';
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

function shown(name: string): string {
  const short = name.length > MAX_NAME_IN_MESSAGE ? `${name.slice(0, MAX_NAME_IN_MESSAGE)}…` : name;
  return JSON.stringify(short).slice(1, -1);
}

/** Problems are numbers so that no decoded text can be mistaken for one. */
const PERCENT = 1;
const UTF8 = 2;
const CONTROL_CHAR = 3;
type Problem = typeof PERCENT | typeof UTF8 | typeof CONTROL_CHAR;

/** Decodes one component; returns the decoded text or the problem found. */
function decode(raw: string, plusAsSpace: boolean): string | Problem {
  if (raw.includes(REPLACEMENT)) return UTF8;
  let text = plusAsSpace && raw.includes('+') ? raw.replaceAll('+', ' ') : raw;
  if (text.includes('%')) {
    if (BAD_PERCENT.test(text)) return PERCENT;
    try {
      text = decodeURIComponent(text);
    } catch {
      // Percent syntax was checked above, so the only failure left is a byte sequence that is not UTF-8.
      return UTF8;
    }
  }
  if (CONTROL.test(text)) return CONTROL_CHAR;
  return text;
}

function problemText(problem: Problem): string {
  switch (problem) {
    case PERCENT:
      return 'malformed percent-encoding (expected % followed by two hex digits)';
    case UTF8:
      return 'not valid UTF-8';
    case CONTROL_CHAR:
      return 'control characters are not allowed';
  }
}

function isProblem(value: string | Problem): value is Problem {
  return typeof value === 'number';
}

/**
 * Parses `a=1&b=2`. A name without `=` gets the empty value. Throws QueryError with a message
 * starting "Invalid query parameters:" (the spec's wording for 400s) on anything malformed.
 */
export function parseQuery(raw: string | undefined, maxLength = MAX_QUERY_LENGTH): ReadonlyMap<string, string> {
  if (raw === undefined || raw === '') return EMPTY;
  if (raw.length > maxLength) throw new QueryError(`Invalid query parameters: the query string is longer than ${maxLength} characters`);
  const query = new Map<string, string>();
  let start = 0;
  while (start <= raw.length) {
    let end = raw.indexOf('&', start);
    if (end === -1) end = raw.length;
    const segment = raw.slice(start, end);
    if (segment === '') throw new QueryError('Invalid query parameters: empty parameter (remove the extra "&")');
    const eq = segment.indexOf('=');
    const rawName = eq === -1 ? segment : segment.slice(0, eq);
    const rawValue = eq === -1 ? '' : segment.slice(eq + 1);
    const name = decode(rawName, true);
    if (isProblem(name)) throw new QueryError(`Invalid query parameters: parameter name ${problemText(name)}`);
    if (name === '') throw new QueryError('Invalid query parameters: a parameter has no name ("=value")');
    const value = decode(rawValue, true);
    if (isProblem(value)) throw new QueryError(`Invalid query parameters: ${shown(name)}: ${problemText(value)}`);
    if (query.has(name)) throw new QueryError(`Invalid query parameters: ${shown(name)}: given more than once`);
    query.set(name, value);
    start = end + 1;
  }
  return query;
}

/** Percent-decodes one path segment strictly (`+` stays a plus). */
export function decodePathParam(raw: string, name: string): string {
  const value = decode(raw, false);
  if (isProblem(value)) throw new QueryError(`Invalid path parameter ${name}: ${problemText(value)}`);
  return value;
}
