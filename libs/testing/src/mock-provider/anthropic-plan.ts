import type { ShapedReply } from './text.js';
import type { ToolCallPlan } from './tools.js';

/** Everything decided about one Messages answer; the message object and the stream are views of it. */
export interface MessagesPlan {
  readonly id: string;
  readonly model: string;
  readonly reply: ShapedReply;
  /** With `thinking` enabled: a signed thinking block before the answer, as Claude sends it. */
  readonly thinking: { readonly text: string; readonly signature: string } | null;
  /** With tool calls: a short text block first, then one tool_use block per call (as Claude answers). */
  readonly toolCalls: readonly { readonly id: string; readonly call: ToolCallPlan }[];
  /** Uncached input tokens (Anthropic counts cache reads apart from `input_tokens`). */
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  readonly outputTokens: number;
  readonly stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use';
}

/** The input counts as Anthropic reports them: three disjoint parts, the writes split by TTL. */
export function inputUsage(plan: MessagesPlan): object {
  return {
    input_tokens: plan.inputTokens,
    cache_creation_input_tokens: plan.cacheWrite5mTokens + plan.cacheWrite1hTokens,
    cache_read_input_tokens: plan.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: plan.cacheWrite5mTokens,
      ephemeral_1h_input_tokens: plan.cacheWrite1hTokens,
    },
  };
}

export function messageUsage(plan: MessagesPlan, outputTokens: number): object {
  return {
    ...inputUsage(plan),
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

/** The content blocks of the final message. */
export function contentBlocks(plan: MessagesPlan): object[] {
  const content: object[] = [];
  if (plan.thinking)
    content.push({ type: 'thinking', thinking: plan.thinking.text, signature: plan.thinking.signature });
  content.push({ type: 'text', text: plan.reply.text });
  for (const { id, call } of plan.toolCalls)
    content.push({ type: 'tool_use', id, name: call.name, input: JSON.parse(call.arguments) as unknown });
  return content;
}
