// Numbers as text, the way String() and JSON.stringify write them, without calling String().
//
// Why: V8 keeps the result of every String(number) (and of `${number}`) in its number-string
// cache, a table that holds the strings alive across young-generation collections. A number
// seen once (a quota count, a body's length, a distance, a coordinate) is new on nearly every
// request, so its string stays in the table over two scavenges and is promoted to the old
// generation, where only a full collection frees it. Under the report's nearby load that was
// ~40 % of what a worker promoted. These functions either write digits as bytes or build the
// string from strings made once at load.

/** The most bytes an int32 takes in decimal (-2147483648). */
export const INT_BYTES = 11;

/** Writes an int32 in decimal at `at` (room for INT_BYTES assumed) and returns where it ends. */
export function writeIntAt(buffer: Uint8Array, at: number, value: number): number {
  let rest = value;
  if (rest < 0) {
    if (rest === -2147483648) {
      buffer.set(INT32_MIN, at); // its negation is not an int32
      return at + INT32_MIN.length;
    }
    buffer[at++] = 0x2d;
    rest = -rest;
  }
  // Digits from the right, in int32 arithmetic (-0 writes "0", as String(-0)).
  const end = at + decimalDigits(rest);
  let position = end;
  while (rest >= 10) {
    const tens = (rest / 10) | 0;
    buffer[--position] = 0x30 + rest - tens * 10;
    rest = tens;
  }
  buffer[--position] = 0x30 + rest;
  return end;
}

/** The number of decimal digits of a non-negative int32. */
function decimalDigits(value: number): number {
  if (value < 100000) return value < 100 ? (value < 10 ? 1 : 2) : value < 1000 ? 3 : value < 10000 ? 4 : 5;
  return value < 10000000 ? (value < 1000000 ? 6 : 7) : value < 100000000 ? 8 : value < 1000000000 ? 9 : 10;
}

const INT32_MIN = new TextEncoder().encode('-2147483648');

/** The most decimals writeDecimalAt writes (coordinates have up to 8). */
const MAX_DECIMALS = 8;
const POWERS_OF_TEN = Array.from({ length: MAX_DECIMALS + 1 }, (_, d) => 10 ** d);
/** The most bytes writeDecimalAt takes: sign, 15 digits, point. */
export const DECIMAL_BYTES = 17;

/**
 * Writes a non-integer `value` at `at` as String(value) would, when it has at most 8
 * decimals and at most 15 significant digits, and returns where it ends (room for DECIMAL_BYTES
 * assumed); returns -1, having written nothing, for any other value (integers: writeIntAt).
 *
 * Why this is String()'s text: for the first d with n = round(value × 10^d) and n / 10^d === value,
 * the decimal n × 10^-d parses back to value (both are correctly rounded), and with |n| < 10^15 the
 * doubles around value are closer together than 10^-d, so no other decimal of d places or fewer
 * (every shorter candidate is one) parses to value: it is the shortest round-trip text, which is
 * what String() writes, in plain notation for 10^-6 ≤ |value| < 10^21.
 */
export function writeDecimalAt(buffer: Uint8Array, at: number, value: number): number {
  const magnitude = value < 0 ? -value : value;
  if (!(magnitude >= 1e-6 && magnitude < 1e15) || Number.isInteger(magnitude)) return -1;
  for (let d = 1; d <= MAX_DECIMALS; d++) {
    const scale = POWERS_OF_TEN[d]!;
    const scaled = Math.round(magnitude * scale);
    if (scaled / scale !== magnitude) continue;
    if (scaled >= 1e15) return -1;
    if (value < 0) buffer[at++] = 0x2d;
    const whole = Math.floor(scaled / scale);
    at = writeUint53At(buffer, at, whole);
    buffer[at++] = 0x2e;
    let fraction = scaled - whole * scale; // exact: integers below 2^53
    // d places, the last one not 0: a value that is k / 10^(d-1) would have matched at d - 1.
    const end = at + d;
    for (let position = end - 1; position >= at; position--) {
      const tens = Math.floor(fraction / 10);
      buffer[position] = 0x30 + fraction - tens * 10;
      fraction = tens;
    }
    return end;
  }
  return -1;
}

/** A non-negative integer below 2^53 in decimal at `at`; returns where it ends. */
function writeUint53At(buffer: Uint8Array, at: number, value: number): number {
  if (value <= 2147483647) return writeIntAt(buffer, at, value);
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let position = at + digits - 1; position >= at; position--) {
    const tens = Math.floor(rest / 10);
    buffer[position] = 0x30 + rest - tens * 10;
    rest = tens;
  }
  return at + digits;
}

/** "0" … "999", made once. */
const SMALL = Array.from({ length: 1000 }, (_, n) => String(n));
/** "000" … "999": the three digits after a thousands boundary. */
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * String(value) for a safe integer (a count, a length, an id), made from strings built once
 * instead of String() (see the top of this file); any other number goes to String().
 */
export function integerText(value: number): string {
  if (value >= 0 && value < 1000 && (value | 0) === value) return SMALL[value]!;
  if (!Number.isSafeInteger(value)) return String(value);
  if (value < 0) return `-${integerText(-value)}`;
  const thousands = Math.floor(value / 1000);
  return integerText(thousands) + THREE_DIGITS[value - thousands * 1000]!;
}
