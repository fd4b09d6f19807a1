import { type CanonicalUsage, type JsonObject } from '#libs/providers';
import { type StreamWireFormat } from './stream-meter.js';

/**
 * Usage of a stream cut before the upstream's final count (client hang-up, upstream failure):
 * a documented approximation of one token per four characters, `ceil(chars / 4)`. Input tokens
 * the upstream already reported (Anthropic's `message_start`) are kept; otherwise they are
 * estimated from the request's text. Output tokens are estimated from the text streamed so far.
 */
export const CHARS_PER_TOKEN = 4;

const tokens = (chars: number): number => Math.ceil(chars / CHARS_PER_TOKEN);

/** Request fields whose text the model reads; binary payloads (images as base64) are skipped. */
const PROMPT_FIELDS = ['messages', 'system', 'prompt', 'input', 'instructions', 'tools'] as const;
const BINARY_KEYS = new Set(['data', 'url', 'image_url', 'file_data', 'source']);

export function estimateInputTokens(body: JsonObject): number {
  return tokens(PROMPT_FIELDS.reduce((n, field) => n + stringChars(body[field], BINARY_KEYS), 0));
}

/** Characters of every string in `value`, leaving out what sits under the `skip` keys. */
function stringChars(value: unknown, skip: ReadonlySet<string>, depth = 0): number {
  if (depth > 32) return 0;
  if (typeof value === 'string') return value.length;
  let chars = 0;
  if (Array.isArray(value)) for (const v of value) chars += stringChars(v, skip, depth + 1);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) if (!skip.has(k)) chars += stringChars(v, skip, depth + 1);
  }
  return chars;
}

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

  constructor(private readonly format: StreamWireFormat) {}

  push(data: string): void {
    this.totalBytes += data.length;
    if (this.keptBytes >= SAMPLE_BYTES) return;
    this.kept.push(data);
    this.keptBytes += data.length;
  }

  /** Estimated output tokens so far. */
  outputTokens(): number {
    if (this.keptBytes === 0) return 0;
    let chars = 0;
    for (const data of this.kept) chars += outputText(this.format, data).length;
    return tokens(Math.round((chars * this.totalBytes) / this.keptBytes));
  }
}

/** A cut stream's usage: what the upstream reported, completed by estimates. */
export function estimatedUsage(
  known: CanonicalUsage | null,
  body: JsonObject,
  sampler: OutputSampler,
): CanonicalUsage {
  return {
    inputTokens: known && known.inputTokens > 0 ? known.inputTokens : estimateInputTokens(body),
    outputTokens: Math.max(known?.outputTokens ?? 0, sampler.outputTokens()),
    cachedTokens: known?.cachedTokens ?? 0,
  };
}

/** Fields of an answer body that hold what was generated, in every wire format. */
const OUTPUT_FIELDS = ['choices', 'output', 'content'] as const;
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
  'annotations',
]);

/**
 * Usage of a successful answer body that reports none (some OpenAI-compatible servers): the
 * request's text in, every generated string of the body out (content, reasoning, tool names and
 * arguments), at the same `ceil(chars / 4)`. An embeddings answer has no generated text: 0 out.
 */
export function estimatedBodyUsage(request: JsonObject, answer: unknown): CanonicalUsage {
  const body = typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {};
  const chars = OUTPUT_FIELDS.reduce((n, field) => n + stringChars(body[field], NOT_GENERATED), 0);
  return { inputTokens: estimateInputTokens(request), outputTokens: tokens(chars), cachedTokens: 0 };
}

/** The generated text in one event payload of the given wire format (empty for other events). */
export function outputText(format: StreamWireFormat, data: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return '';
  }
  if (typeof parsed !== 'object' || parsed === null) return '';
  const p = parsed as Record<string, unknown>;
  switch (format) {
    case 'openai-chat':
      return chatText(p);
    case 'openai-responses':
      return typeof p.type === 'string' && p.type.endsWith('.delta') && typeof p.delta === 'string'
        ? p.delta
        : '';
    case 'anthropic': {
      if (p.type !== 'content_block_delta') return '';
      const d = (p.delta ?? {}) as Record<string, unknown>;
      return str(d.text) + str(d.thinking) + str(d.partial_json);
    }
  }
}

/** Chat deltas (content, reasoning, tool arguments) and completions' `text`. */
function chatText(p: Record<string, unknown>): string {
  if (!Array.isArray(p.choices)) return '';
  let text = '';
  for (const choice of p.choices as Record<string, unknown>[]) {
    text += str(choice.text);
    const d = (choice.delta ?? {}) as Record<string, unknown>;
    text += str(d.content) + str(d.reasoning_content) + str(d.refusal);
    if (Array.isArray(d.tool_calls)) {
      for (const call of d.tool_calls as { function?: { name?: unknown; arguments?: unknown } }[])
        text += str(call.function?.name) + str(call.function?.arguments);
    }
  }
  return text;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
