/** The bound of each captured content value (system instructions, input, output), in UTF-8 bytes. */
export const CONTENT_MAX_BYTES = 16 * 1024;

/** Ends every string cut to fit, and a value cut whole. */
export const TRUNCATED_MARK = '…[truncated]';
const MARK_BYTES = Buffer.byteLength(TRUNCATED_MARK);
const encoder = new TextEncoder();

/**
 * `value` as JSON of at most `maxBytes` UTF-8 bytes, so one huge prompt cannot blow up an exporter
 * or a log pipeline. Over the bound, the longest strings are cut to a common length and end with
 * the mark, so the value stays JSON with every message and part in place (what the GenAI
 * conventions advise: truncate contents, keep the structure) and short texts survive a long
 * pasted document or an inline image. Only when the structure alone is over the bound is the
 * JSON text itself cut, and then it ends with the mark and no longer parses.
 */
export function boundedJson(value: unknown, maxBytes = CONTENT_MAX_BYTES): string {
  const whole = JSON.stringify(value) ?? 'null';
  // A UTF-16 unit is at most 3 UTF-8 bytes: most values are decided without counting.
  if (whole.length * 3 <= maxBytes) return whole;
  const size = Buffer.byteLength(whole);
  if (size <= maxBytes) return whole;
  const leaves: number[] = [];
  leafSizes(value, leaves);
  const structure = size - leaves.reduce((a, b) => a + b, 0);
  const cap = waterLevel(leaves, maxBytes - structure);
  if (cap !== null) {
    const cut = JSON.stringify(cutStrings(value, cap));
    if (Buffer.byteLength(cut) <= maxBytes) return cut;
  }
  return cutUtf8(whole, Math.max(0, maxBytes - MARK_BYTES)) + TRUNCATED_MARK;
}

/** The size of every string value as it is written in JSON (keys are structure). */
function leafSizes(value: unknown, out: number[]): void {
  if (typeof value === 'string') out.push(jsonSize(value));
  else if (Array.isArray(value)) for (const v of value) leafSizes(v, out);
  else if (typeof value === 'object' && value !== null)
    for (const v of Object.values(value)) leafSizes(v, out);
}

/**
 * The largest length `cap` such that every string kept whole when it fits in `cap` + the mark, and
 * cut to `cap` plus the mark otherwise, sums to at most `budget` bytes; null when even empty cut
 * strings would not fit.
 */
function waterLevel(sizes: number[], budget: number): number | null {
  const sorted = [...sizes].sort((a, b) => a - b);
  let rest = budget;
  for (let i = 0; i < sorted.length; i++) {
    const share = Math.floor(rest / (sorted.length - i));
    if (sorted[i]! <= share) {
      rest -= sorted[i]!;
      continue;
    }
    return share >= MARK_BYTES ? share - MARK_BYTES : null;
  }
  return null;
}

function cutStrings(value: unknown, cap: number): unknown {
  if (typeof value === 'string')
    return jsonSize(value) > cap + MARK_BYTES ? cutToFit(value, cap) + TRUNCATED_MARK : value;
  if (Array.isArray(value)) return value.map((v) => cutStrings(v, cap));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = cutStrings(v, cap);
    return out;
  }
  return value;
}

/** A prefix of `text` whose JSON form (escapes included) is at most `cap` bytes. */
function cutToFit(text: string, cap: number): string {
  let raw = cap;
  for (;;) {
    const piece = cutUtf8(text, raw);
    const size = jsonSize(piece);
    if (size <= cap) return piece;
    // Escapes took room: shrink in proportion (strictly smaller each time, so this ends).
    raw = Math.floor((raw * cap) / size);
  }
}

/** UTF-8 bytes of a string inside JSON, quotes excluded. */
const jsonSize = (s: string): number => Buffer.byteLength(JSON.stringify(s)) - 2;

/** The longest prefix of `text` within `bytes` UTF-8 bytes, never splitting a character. */
function cutUtf8(text: string, bytes: number): string {
  const { read } = encoder.encodeInto(text, new Uint8Array(bytes));
  return text.slice(0, read);
}
