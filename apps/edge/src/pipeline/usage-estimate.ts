import {
  type CanonicalUsage,
  type CountText,
  type CountTexts,
  type JsonObject,
  usageOf,
  type WireFormat,
} from '#libs/providers';

/**
 * Usage the upstream did not report. A stream cut before the upstream's final count (client
 * hang-up, upstream failure) is counted with the model family's tokenizer (`cut-usage.ts`); what
 * has no tokenizer at hand (an answer body without usage, a stream marker written before the
 * first byte) uses the documented approximation of one token per four characters,
 * `ceil(chars / 4)`. Input tokens the upstream already reported (at the start of its stream) are
 * kept; otherwise they are estimated from the request's text. Output tokens are estimated from
 * the text streamed so far.
 */
export const CHARS_PER_TOKEN = 4;

const tokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);
/** The fallback counter: `ceil(chars / 4)`. */
export const countByChars: CountText = (text) => tokens(text.length);
/** The same, over several texts. */
export const countAllByChars: CountTexts = (texts) =>
  Promise.resolve(texts.reduce((n, text) => n + countByChars(text), 0));

/** Request fields whose text the model reads; binary payloads (images as base64) are skipped. */
const PROMPT_FIELDS = [
  'messages',
  'contents',
  'system',
  'systemInstruction',
  'prompt',
  'input',
  'instructions',
  'tools',
] as const;
const BINARY_KEYS = new Set([
  'data',
  'url',
  'image_url',
  'file_data',
  'source',
  'inlineData',
  'thoughtSignature',
]);

export function estimateInputTokens(body: JsonObject, count: CountText = countByChars): number {
  return count(promptText(body));
}

/** The request's text the model reads, as one string. */
const promptText = (body: JsonObject): string =>
  PROMPT_FIELDS.flatMap((field) => strings(body[field], BINARY_KEYS)).join('');

/** Every string in `value`, leaving out what sits under the `skip` keys. */
function strings(value: unknown, skip: ReadonlySet<string>, out: string[] = [], depth = 0): string[] {
  if (depth > 32) return out;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, skip, out, depth + 1);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) if (!skip.has(k)) strings(v, skip, out, depth + 1);
  }
  return out;
}

const stringChars = (value: unknown, skip: ReadonlySet<string>): number =>
  strings(value, skip).reduce((n, s) => n + s.length, 0);

/** Bytes of upstream data kept to measure the text of a cut stream; past it, the rest is extrapolated. */
const SAMPLE_BYTES = 64 * 1024;

/**
 * Remembers a bounded sample of a stream's `data:` payloads so the text produced can be measured if
 * the stream is cut, without parsing anything while it runs normally.
 */
export class OutputSampler {
  private readonly kept: string[] = [];
  private keptBytes = 0;
  private totalBytes = 0;

  constructor(private readonly wire: WireFormat) {}

  push(data: string): void {
    this.totalBytes += data.length;
    if (this.keptBytes >= SAMPLE_BYTES) return;
    this.kept.push(data);
    this.keptBytes += data.length;
  }

  /** Estimated output tokens so far: the sample's text counted, scaled to all the bytes seen. */
  outputTokens(count: CountText = countByChars): number {
    return this.scaled(count(this.sampleText()));
  }

  /** The generated text of the sample. */
  sampleText(): string {
    let text = '';
    for (const data of this.kept) text += this.wire.outputText(data);
    return text;
  }

  /** The sample's tokens scaled to all the bytes seen. */
  scaled(sampled: number): number {
    if (this.keptBytes === 0) return 0;
    return this.keptBytes === this.totalBytes
      ? sampled
      : Math.ceil((sampled * this.totalBytes) / this.keptBytes);
  }
}

/**
 * A cut stream's usage: what the upstream reported, completed by estimates. The texts are counted
 * by a `CountTexts` (the tokenizer's lets the event loop run and bounds the work: a cut stream's
 * prompt is whatever the client sent).
 */
export async function estimatedUsage(
  known: CanonicalUsage | null,
  body: JsonObject,
  sampler: OutputSampler,
  countAll: CountTexts = countAllByChars,
): Promise<CanonicalUsage> {
  const sampled = sampler.scaled(await countAll([sampler.sampleText()]));
  const output = Math.max(known?.outputTokens ?? 0, sampled);
  if (known && known.inputTokens > 0) return { ...known, outputTokens: output, reasoningTokens: 0 };
  return usageOf({ uncached: await countAll([promptText(body)]), output });
}

/** Fields of an answer body that hold what was generated, in every wire format. */
const OUTPUT_FIELDS = ['choices', 'candidates', 'output', 'content'] as const;
/** Bookkeeping inside those fields: identifiers and enums, not generated text. */
const NOT_GENERATED = new Set([
  'id',
  'type',
  'role',
  'index',
  'status',
  'call_id',
  'finish_reason',
  'stop_reason',
  'logprobs',
  'signature',
  'thoughtSignature',
  'finishReason',
  'annotations',
]);

/**
 * Usage of a successful answer body that reports none (some self-hosted servers): the
 * request's text in, every generated string of the body out (content, reasoning, tool names and
 * arguments), at the same `ceil(chars / 4)`. An embeddings answer has no generated text: 0 out.
 */
export function estimatedBodyUsage(request: JsonObject, answer: unknown): CanonicalUsage {
  const body = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
  const chars = OUTPUT_FIELDS.reduce((n, field) => n + stringChars(body[field], NOT_GENERATED), 0);
  return usageOf({ uncached: estimateInputTokens(request), output: tokens(chars) });
}
