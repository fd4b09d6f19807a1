/**
 * Where a text is cut before it reaches the BPE, so counting it costs time linear in its length.
 *
 * An encoding first splits a text into pieces with its split regex (words with their leading
 * space, runs of digits, of punctuation, of whitespace), then merges each piece's bytes by rank.
 * The merging is superlinear in the piece's length: 100 KB of `a` with no break is one piece,
 * and took 11.5 s (o200k) against 6 ms for 100 KB of prose. So:
 *
 * - A piece longer than MAX_PIECE chars (no word is; a run of one letter, of spaces or of `=`
 *   is) is cut into parts of MAX_PIECE, each counted alone. Only such texts count differently
 *   from the encoding's own count, by a few tokens at each cut.
 * - The other pieces are grouped into slices of about SLICE chars, so the caller can let the
 *   event loop run between them. A slice ends after a piece whose last char is not whitespace:
 *   there, counting the slices apart gives exactly the count of the whole (the split regex has
 *   no lookbehind, and its only tests of what follows, `\s+$` and `\s+(?!\S)`, concern a run of
 *   whitespace reaching the cut). The recorded agent requests count the same either way
 *   (token-slices.spec.ts). Only a text with no such piece for SLICE chars is cut elsewhere.
 */
export const MAX_PIECE = 256;
export const SLICE = 2048;

const WHITESPACE = /\s/;

/** A slice of a text: `[start, end)`. */
export interface Slice {
  readonly start: number;
  readonly end: number;
}

/**
 * The text's slices, in order, covering it exactly. `split` is the encoding's split regex
 * (global, unicode). A text of at most SLICE chars is one slice: it holds no piece longer.
 */
export function* slicesOf(text: string, split: RegExp): Generator<Slice> {
  if (text.length <= SLICE) {
    if (text.length > 0) yield { start: 0, end: text.length };
    return;
  }
  let start = 0;
  /** The end of the slice's last piece that ends on a non-whitespace char: where it may be cut. */
  let cut = 0;
  for (const match of text.matchAll(split)) {
    const from = match.index;
    const to = from + match[0].length;
    if (to - from > MAX_PIECE) {
      if (from > start) yield { start, end: from };
      yield* partsOf(text, from, to);
      start = cut = to;
      continue;
    }
    if (to - start > SLICE) {
      // Text of pieces that all end on whitespace (`.\n.\n...`) has no exact cut: cut anyway.
      const end = cut > start ? cut : from;
      if (end > start) yield { start, end };
      start = end;
    }
    if (!WHITESPACE.test(text[to - 1]!)) cut = to;
  }
  if (text.length > start) yield { start, end: text.length };
}

/** `[from, to)` in parts of MAX_PIECE chars, never between the two halves of a surrogate pair. */
function* partsOf(text: string, from: number, to: number): Generator<Slice> {
  for (let start = from; start < to;) {
    let end = Math.min(to, start + MAX_PIECE);
    const last = text.charCodeAt(end - 1);
    if (end < to && last >= 0xd800 && last <= 0xdbff) end -= 1;
    yield { start, end };
    start = end;
  }
}
