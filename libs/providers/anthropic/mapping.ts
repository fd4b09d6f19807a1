import { type ChatFinishReason, type ChatUsage } from '../src/chat.js';
import { type AnthropicStopReason, type AnthropicUsage, isObject, upstreamError } from './wire.js';

/**
 * Stop reason -> finish reason. `pause_turn` (a server-tool turn paused for continuation) and
 * `model_context_window_exceeded` both mean "cut short, may be continued": `length`. The hub
 * never sends server tools, so `pause_turn` only appears if a vendor adds it elsewhere.
 */
export function finishReasonOf(stop: unknown): ChatFinishReason | null {
  switch (stop) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'pause_turn':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case null:
    case undefined:
      return null;
    default:
      throw upstreamError(`Anthropic returned an unknown stop_reason: ${String(stop)}.`);
  }
}

/**
 * Finish reason -> stop reason. OpenAI-format providers do not say whether `stop` came from a
 * stop sequence or the natural end, nor which sequence matched: `end_turn` with no
 * `stop_sequence` is the only honest answer.
 */
export function stopReasonOf(finish: ChatFinishReason | null): AnthropicStopReason {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * Anthropic usage -> hub usage. Anthropic's `input_tokens` excludes cache reads and cache writes;
 * OpenAI's `prompt_tokens` includes every input token, with the cache reads repeated in
 * `cached_tokens`. Thinking tokens are part of Anthropic's `output_tokens`, as reasoning tokens
 * are part of OpenAI's `completion_tokens`.
 */
export function hubUsageOf(usage: unknown): ChatUsage {
  if (!isObject(usage)) throw upstreamError('Anthropic returned no usage object.');
  const cacheRead = count(usage.cache_read_input_tokens);
  const prompt = count(usage.input_tokens) + cacheRead + count(usage.cache_creation_input_tokens);
  const completion = count(usage.output_tokens);
  const details = usage.output_tokens_details;
  const thinking = isObject(details) ? count(details.thinking_tokens) : 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cacheRead },
    ...(thinking > 0 ? { completion_tokens_details: { reasoning_tokens: thinking } } : {}),
  };
}

/**
 * Hub usage -> Anthropic usage: the exact inverse of `hubUsageOf` for cache reads. OpenAI-format
 * providers report no cache writes, so `cache_creation_input_tokens` is 0 and every uncached
 * prompt token is an `input_tokens`.
 */
export function anthropicUsageOf(usage: ChatUsage | null | undefined): Required<
  Pick<AnthropicUsage, 'input_tokens' | 'output_tokens'>
> & {
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
} {
  const prompt = count(usage?.prompt_tokens);
  const cached = Math.min(count(usage?.prompt_tokens_details?.cached_tokens), prompt);
  return {
    input_tokens: prompt - cached,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: count(usage?.completion_tokens),
  };
}
