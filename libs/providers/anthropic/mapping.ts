import { type ChatFinishReason } from '../src/chat.js';
import { type AnthropicStopReason, upstreamError } from './wire.js';

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
