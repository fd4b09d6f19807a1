import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-bytes.js';

const keyBytes = new Map<string, Buffer>();

/** Strings shorter than this (keys, most values) are walked inline: a native `indexOf` costs more. */
const INLINE_SCAN = 24;

/** The index of the quote closing the string whose content starts at `from`; -1 if it never closes. */
function closingQuote(json: Buffer, from: number): number {
  const inline = Math.min(json.length, from + INLINE_SCAN);
  for (let i = from; i < inline; i++) {
    const byte = json[i];
    if (byte === QUOTE) return i;
    if (byte === BACKSLASH) i++;
  }
  // Past the inline part, the parity of the backslashes before a quote says whether it is escaped.
  for (let q = json.indexOf(QUOTE, inline); q !== -1; q = json.indexOf(QUOTE, q + 1)) {
    let slashes = 0;
    while (json[q - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

const isSpace = (byte: number | undefined): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/**
 * The value of one top-level member of a JSON object, parsed alone: the rest of the text is only
 * walked (string contents skipped with `indexOf`, nothing allocated), which for an answer passed
 * through byte for byte replaces parsing it whole to read its usage. `undefined` when the object
 * has no such member (the last one wins, as with `JSON.parse`). Throws a SyntaxError for text that
 * is not JSON as far as the walk sees: unbalanced or mismatched brackets, an unclosed string,
 * anything after the end. It does not check the scalars between them; a JSON text that is not an
 * object is parsed whole and has no member.
 */
export function topLevelMember(json: Buffer, name: string): unknown {
  let start = 0;
  while (isSpace(json[start])) start++;
  if (json[start] !== OPEN_BRACE) {
    JSON.parse(json.toString('utf8'));
    return undefined;
  }
  let key = keyBytes.get(name);
  if (key === undefined) keyBytes.set(name, (key = Buffer.from(JSON.stringify(name))));
  const open: number[] = [];
  let expectKey = false;
  let matched = false;
  let valueStart = -1;
  let value: unknown = undefined;
  const take = (end: number): void => {
    value = JSON.parse(json.toString('utf8', valueStart, end));
    valueStart = -1;
  };
  for (let i = start; i < json.length; i++) {
    const byte = json[i];
    if (byte === QUOTE) {
      const end = closingQuote(json, i + 1);
      if (end === -1) throw new SyntaxError('Unterminated string in JSON');
      if (expectKey) {
        matched = end + 1 - i === key.length && json.compare(key, 0, key.length, i, end + 1) === 0;
        expectKey = false;
      }
      i = end;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      open.push(byte);
      expectKey = byte === OPEN_BRACE && open.length === 1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (open.pop() !== (byte === CLOSE_BRACE ? OPEN_BRACE : OPEN_BRACKET)) {
        throw new SyntaxError(`Unexpected '${String.fromCharCode(byte)}' in JSON at position ${i}`);
      }
      if (open.length === 0) {
        if (valueStart !== -1) take(i);
        for (let rest = i + 1; rest < json.length; rest++) {
          if (!isSpace(json[rest])) throw new SyntaxError(`Unexpected data after JSON at position ${rest}`);
        }
        return value;
      }
    } else if (open.length === 1) {
      if (byte === COMMA) {
        if (valueStart !== -1) take(i);
        expectKey = true;
      } else if (byte === COLON && matched) {
        matched = false;
        valueStart = i + 1;
      }
    }
  }
  throw new SyntaxError('Unexpected end of JSON input');
}
