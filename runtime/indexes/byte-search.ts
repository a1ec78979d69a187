// Substring search over UTF-8 bytes, shared by the indexes that match a key "contains" test on
// their stored bytes (names index: `q` on the lists; postcode localities: `q` among a shorter q's
// matches). For well-formed UTF-8 a byte match is a code-unit match (UTF-8 is self-synchronizing),
// so the answer is String.prototype.includes' on the decoded text. Keys are a few dozen bytes:
// a plain scan.

/** Whether bytes[start, end) hold probe[0, probeLength). */
export function bytesContain(bytes: Uint8Array, start: number, end: number, probe: Uint8Array, probeLength: number): boolean {
  for (let at = start, last = end - probeLength; at <= last; at++) {
    let k = 0;
    while (k < probeLength && bytes[at + k] === probe[k]) k++;
    if (k === probeLength) return true;
  }
  return false;
}
