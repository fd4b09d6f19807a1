import type { ShapedReply } from './text.js';
import type { ToolCallPlan } from './tools.js';

/** Everything decided about one Messages answer; the message object and the stream are views of it. */
export interface MessagesPlan {
  readonly id: string;
  readonly model: string;
  readonly reply: ShapedReply;
  /** With a tool call: a short text block first, then the tool_use block (as Claude answers). */
  readonly toolCall: ToolCallPlan | null;
  readonly toolUseId: string;
  /** Uncached input tokens (Anthropic counts cache reads apart from `input_tokens`). */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly outputTokens: number;
  readonly stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
}

export function messageUsage(plan: MessagesPlan, outputTokens: number): object {
  return {
    input_tokens: plan.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: plan.cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}
