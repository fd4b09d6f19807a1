import { mockId } from './ids.js';
import { chatUsage } from './openai-usage.js';
import { DONE_FRAME, dataFrame } from './sse.js';
import { argumentPieces, tokensOf, type ShapedReply } from './text.js';
import type { ToolCallPlan } from './tools.js';

/** Everything decided about one chat answer; the completion object and the chunks are views of it. */
export interface ChatPlan {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly n: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly reply: ShapedReply;
  readonly toolCall: ToolCallPlan | null;
}

function finishReason(plan: ChatPlan): string {
  if (plan.toolCall) return 'tool_calls';
  return plan.reply.finish === 'length' ? 'length' : 'stop';
}

function completionTokens(plan: ChatPlan): number {
  return plan.n * (plan.toolCall ? tokensOf(plan.toolCall.arguments) + 8 : plan.reply.tokens);
}

export function completionBody(plan: ChatPlan): object {
  const choices = [];
  for (let index = 0; index < plan.n; index++) {
    const message = plan.toolCall
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: mockId('call_'),
              type: 'function',
              function: { name: plan.toolCall.name, arguments: plan.toolCall.arguments },
            },
          ],
          refusal: null,
          annotations: [],
        }
      : { role: 'assistant', content: plan.reply.text, refusal: null, annotations: [] };
    choices.push({ index, message, logprobs: null, finish_reason: finishReason(plan) });
  }
  return {
    id: plan.id,
    object: 'chat.completion',
    created: plan.created,
    model: plan.model,
    choices,
    usage: chatUsage(plan.promptTokens, completionTokens(plan), plan.cachedTokens),
    service_tier: 'default',
    system_fingerprint: 'fp_mock',
  };
}

/** Chunks as OpenAI sends them: role first, content (or argument) deltas, finish, usage, [DONE]. */
export function streamWrites(plan: ChatPlan, includeUsage: boolean): string[] {
  const chunk = (choices: object[], usage?: object): string =>
    dataFrame({
      id: plan.id,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
      service_tier: 'default',
      system_fingerprint: 'fp_mock',
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    });
  const perChoice = (delta: (index: number) => object, finish: string | null = null): string => {
    const choices = [];
    for (let index = 0; index < plan.n; index++)
      choices.push({ index, delta: delta(index), logprobs: null, finish_reason: finish });
    return chunk(choices);
  };
  const call = plan.toolCall;
  const callIds = call ? Array.from({ length: plan.n }, () => mockId('call_')) : [];
  const pieces = call ? argumentPieces(call.arguments) : plan.reply.deltas;
  const head = call
    ? perChoice((i) => ({
        role: 'assistant',
        content: null,
        tool_calls: [
          { index: 0, id: callIds[i], type: 'function', function: { name: call.name, arguments: '' } },
        ],
        refusal: null,
      }))
    : perChoice(() => ({ role: 'assistant', content: '', refusal: null }));
  const writes = pieces.map((piece) =>
    perChoice(() =>
      call ? { tool_calls: [{ index: 0, function: { arguments: piece } }] } : { content: piece },
    ),
  );
  let tail = perChoice(() => ({}), finishReason(plan));
  if (includeUsage)
    tail += chunk([], chatUsage(plan.promptTokens, completionTokens(plan), plan.cachedTokens));
  tail += DONE_FRAME;
  if (writes.length === 0) return [head + tail];
  writes[0] = head + writes[0];
  writes[writes.length - 1] += tail;
  return writes;
}
