import { type ChatFinishReason } from '../src/chat.js';
import { finishReasonIn } from '../src/hub-answer.js';
import { type AnthropicStopReason } from './wire.js';

/**
 * Stop reason -> finish reason. `pause_turn` (a server-tool turn paused for continuation) and
 * `model_context_window_exceeded` both mean "cut short, may be continued": `length`. The hub
 * never sends server tools, so `pause_turn` only appears if a vendor adds it elsewhere.
 */
export function finishReasonOf(stop: unknown): ChatFinishReason | null {
  return finishReasonIn(stop, FINISH_REASONS, 'Anthropic returned an unknown stop_reason');
}

const FINISH_REASONS: Readonly<Record<AnthropicStopReason, ChatFinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  pause_turn: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

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
