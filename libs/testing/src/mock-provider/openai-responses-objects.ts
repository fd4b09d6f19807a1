import { unixSeconds } from './ids.js';
import { responsesUsage } from './openai-usage.js';
import { tokensOf, type ShapedReply } from './text.js';
import type { ToolCallPlan } from './tools.js';
import type { JsonObject } from './types.js';

/** Everything decided about one Responses answer; the objects and events below are views of it. */
export interface ResponsesPlan {
  readonly body: JsonObject;
  readonly id: string;
  readonly createdAt: number;
  readonly itemId: string;
  readonly reply: ShapedReply;
  readonly toolCall: ToolCallPlan | null;
  readonly callId: string;
  readonly inputTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
}

/** Whether the answer was cut by `max_output_tokens`. */
export function isIncomplete(plan: ResponsesPlan): boolean {
  return plan.toolCall === null && plan.reply.finish === 'length';
}

export function outputTokens(plan: ResponsesPlan): number {
  return plan.toolCall ? tokensOf(plan.toolCall.arguments) + 8 : plan.reply.tokens;
}

/** The output item: a message with one output_text part, or a function call. */
export function outputItem(plan: ResponsesPlan, stage: 'added' | 'final'): object {
  const status = stage === 'added' ? 'in_progress' : isIncomplete(plan) ? 'incomplete' : 'completed';
  if (plan.toolCall) {
    const args = stage === 'added' ? '' : plan.toolCall.arguments;
    return {
      id: plan.itemId,
      type: 'function_call',
      status,
      arguments: args,
      call_id: plan.callId,
      name: plan.toolCall.name,
    };
  }
  const content = stage === 'added' ? [] : [outputText(plan.reply.text)];
  return { id: plan.itemId, type: 'message', status, content, role: 'assistant' };
}

export function outputText(text: string): object {
  return { type: 'output_text', annotations: [], logprobs: [], text };
}

/** The response object; `in_progress` snapshots carry no output and no usage, as on the wire. */
export function responseObject(
  plan: ResponsesPlan,
  stage: 'in_progress' | 'final',
  output: object[],
): object {
  const b = plan.body;
  const final = stage === 'final';
  const incomplete = final && isIncomplete(plan);
  return {
    id: plan.id,
    object: 'response',
    created_at: plan.createdAt,
    status: !final ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    background: b.background === true,
    completed_at: final && !incomplete ? unixSeconds() : null,
    error: null,
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: b.instructions ?? null,
    max_output_tokens: b.max_output_tokens ?? null,
    max_tool_calls: b.max_tool_calls ?? null,
    model: b.model,
    output,
    parallel_tool_calls: b.parallel_tool_calls ?? true,
    previous_response_id: b.previous_response_id ?? null,
    prompt_cache_key: b.prompt_cache_key ?? null,
    reasoning: { effort: null, summary: null },
    safety_identifier: b.safety_identifier ?? null,
    service_tier: final ? 'default' : 'auto',
    store: b.store ?? true,
    temperature: b.temperature ?? 1,
    text: b.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: b.tool_choice ?? 'auto',
    tools: b.tools ?? [],
    top_logprobs: b.top_logprobs ?? 0,
    top_p: b.top_p ?? 1,
    truncation: b.truncation ?? 'disabled',
    usage: final
      ? responsesUsage(plan.inputTokens, outputTokens(plan), plan.cachedTokens, plan.cacheWriteTokens)
      : null,
    user: b.user ?? null,
    metadata: b.metadata ?? {},
  };
}
