/**
 * Deterministic text and token helpers: the reply is a pure function of the input and the
 * behaviour, so streams and non-stream answers agree and tests can predict both.
 */

export type FinishKind = 'stop' | 'length' | 'stop_sequence';

export interface ShapedReply {
  readonly text: string;
  /** The text cut into at most `chunkCount` pieces; joined they equal `text`. */
  readonly deltas: readonly string[];
  readonly finish: FinishKind;
  /** The stop sequence that cut the text, when `finish` is `stop_sequence`. */
  readonly stopSequence: string | null;
  readonly tokens: number;
}

export interface ShapeOptions {
  readonly chunkCount: number;
  /** Token budget (max_tokens and friends); the text is cut at 4 characters per token. */
  readonly maxTokens?: number | undefined;
  readonly stops?: readonly string[] | undefined;
}

const CHARS_PER_TOKEN = 4;
const FILLER = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit'] as const;

/** About one token per four characters: at least one for any non-empty text. */
export function tokensOf(text: string): number {
  return tokensForLength(text.length);
}

export function tokensForLength(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** The first `count` words of `text`, single-spaced. */
export function firstWords(text: string, count: number): string {
  const words = text.trim().split(/\s+/, count);
  return words.join(' ');
}

/**
 * The reply to a prompt: `fixed` verbatim when set, otherwise "This is a mock reply to: <first
 * words>" padded with filler words so that a stream of `chunkCount` deltas carries about one token
 * per delta, like a real model.
 */
export function replyText(prompt: string, fixed: string | null, chunkCount: number): string {
  if (fixed !== null) return fixed;
  const head = firstWords(prompt, 8);
  let text = head ? `This is a mock reply to: ${head}` : 'This is a mock reply.';
  const wanted = chunkCount * CHARS_PER_TOKEN;
  for (let i = 0; text.length < wanted; i++) text += ` ${FILLER[i % FILLER.length]}`;
  return text;
}

/** Cuts the reply at the token budget and the first stop sequence, then splits it into deltas. */
export function shapeReply(full: string, options: ShapeOptions): ShapedReply {
  let text = full;
  let finish: FinishKind = 'stop';
  let stopSequence: string | null = null;
  for (const stop of options.stops ?? []) {
    const at = stop ? text.indexOf(stop) : -1;
    if (at >= 0) {
      text = text.slice(0, at);
      finish = 'stop_sequence';
      stopSequence = stop;
    }
  }
  const budget = options.maxTokens;
  if (budget !== undefined && text.length > budget * CHARS_PER_TOKEN) {
    text = text.slice(0, budget * CHARS_PER_TOKEN);
    finish = 'length';
    stopSequence = null;
  }
  return {
    text,
    deltas: splitEvenly(text, options.chunkCount),
    finish,
    stopSequence,
    tokens: tokensOf(text),
  };
}

/** Splits `text` into at most `count` non-empty pieces of near-equal length (never inside a surrogate pair). */
export function splitEvenly(text: string, count: number): string[] {
  if (text.length === 0) return [];
  const pieces = Math.max(1, Math.min(count, text.length));
  const out: string[] = [];
  let start = 0;
  for (let i = 1; i <= pieces; i++) {
    let end = i === pieces ? text.length : Math.round((text.length * i) / pieces);
    if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end++;
    if (end > start) out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Plain text of a vendor content value: a string, or an array of parts carrying `text`
 * (OpenAI text/input_text/output_text parts, Anthropic text blocks and tool_result contents).
 */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const value =
      (part as { text?: unknown; content?: unknown }).text ?? (part as { content?: unknown }).content;
    const piece = textOf(value);
    if (piece) text = text ? `${text} ${piece}` : piece;
  }
  return text;
}

/** Splits the tool-call arguments JSON into a few pieces, as vendors stream them. */
export function argumentPieces(json: string): string[] {
  return splitEvenly(json, Math.min(4, json.length));
}

const IMAGE_PARTS = new Set(['image_url', 'image', 'input_image']);

/** Image parts in a vendor content value (OpenAI image_url / input_image, Anthropic image blocks). */
export function imageCount(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) {
    if (typeof part !== 'object' || part === null) continue;
    const p = part as { type?: unknown; content?: unknown };
    if (typeof p.type === 'string' && IMAGE_PARTS.has(p.type)) n++;
    else if (p.type === 'tool_result') n += imageCount(p.content);
  }
  return n;
}

/** The prompt the reply echoes: images show as `[N image(s)]` first, so a test sees they arrived. */
export function promptWithImages(text: string, images: number): string {
  if (images === 0) return text;
  return `[${images} image${images === 1 ? '' : 's'}] ${text}`;
}
