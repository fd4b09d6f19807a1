import { mockId } from './ids.js';
import { chatUsage } from './openai-usage.js';
import { DONE_FRAME, dataFrame } from './sse.js';
import { argumentPieces, tokensOf, type ShapedReply } from './text.js';
import type { ToolCallPlan } from './tools.js';
import type { Flavour } from './types.js';

/** Everything decided about one chat answer; the completion object and the chunks are views of it. */
export interface ChatPlan {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly n: number;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  readonly cacheWriteTokens: number;
  /** Audio output tokens reported beside the reply's text tokens (`behaviour.audioOutputTokens`). */
  readonly audioOutputTokens: number;
  readonly reply: ShapedReply;
  /** Empty: a text answer. Several: parallel calls. */
  readonly toolCalls: readonly ToolCallPlan[];
  /** Vendor extras on the completion and on every chunk (Perplexity's citations). */
  readonly extras: Readonly<Record<string, unknown>>;
  /** Perplexity puts usage on the last content chunk, asked or not; compat servers count cache DeepSeek's way. */
  readonly flavour: Flavour;
}

function usageOf(plan: ChatPlan): object {
  const usage = chatUsage(
    plan.promptTokens,
    completionTokens(plan),
    plan.cachedTokens,
    plan.cacheWriteTokens,
    plan.audioOutputTokens,
  );
  if (plan.flavour !== 'compat') return usage;
  const hit = Math.min(plan.cachedTokens, plan.promptTokens);
  const { prompt_tokens_details: _d, ...rest } = usage as { prompt_tokens_details: unknown };
  return { ...rest, prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: plan.promptTokens - hit };
}

function finishReason(plan: ChatPlan): string {
  if (plan.toolCalls.length > 0) return 'tool_calls';
  return plan.reply.finish === 'length' ? 'length' : 'stop';
}

function completionTokens(plan: ChatPlan): number {
  const calls = plan.toolCalls.reduce((sum, c) => sum + tokensOf(c.arguments) + 8, 0);
  return plan.n * (plan.toolCalls.length > 0 ? calls : plan.reply.tokens);
}

export function completionBody(plan: ChatPlan): object {
  const choices = [];
  for (let index = 0; index < plan.n; index++) {
    const message =
      plan.toolCalls.length > 0
        ? {
            role: 'assistant',
            content: null,
            tool_calls: plan.toolCalls.map((call) => ({
              id: mockId('call_'),
              type: 'function',
              function: { name: call.name, arguments: call.arguments },
            })),
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
    usage: usageOf(plan),
    service_tier: 'default',
    system_fingerprint: 'fp_mock',
    ...plan.extras,
  };
}

/** Chunks as OpenAI sends them: role first, content (or argument) deltas, finish, usage, [DONE]. */
export function streamWrites(plan: ChatPlan, includeUsage: boolean): string[] {
  if (plan.flavour === 'perplexity' && plan.toolCalls.length === 0 && plan.reply.deltas.length > 0)
    return perplexityWrites(plan);
  const chunk = (choices: object[], usage?: object): string =>
    dataFrame({
      id: plan.id,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
      service_tier: 'default',
      system_fingerprint: 'fp_mock',
      choices,
      ...plan.extras,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    });
  const perChoice = (delta: (index: number) => object, finish: string | null = null): string => {
    const choices = [];
    for (let index = 0; index < plan.n; index++)
      choices.push({ index, delta: delta(index), logprobs: null, finish_reason: finish });
    return chunk(choices);
  };
  const calls = plan.toolCalls;
  let head: string;
  let writes: string[];
  if (calls.length > 0) {
    // Per call: a chunk naming it (id, name, empty arguments), then its argument pieces.
    const ids = Array.from({ length: plan.n }, () => calls.map(() => mockId('call_')));
    const named = (k: number, i: number): object => ({
      index: k,
      id: ids[i]![k],
      type: 'function',
      function: { name: calls[k]!.name, arguments: '' },
    });
    head = perChoice((i) => ({ role: 'assistant', content: null, tool_calls: [named(0, i)], refusal: null }));
    writes = [];
    calls.forEach((call, k) => {
      if (k > 0) writes.push(perChoice((i) => ({ tool_calls: [named(k, i)] })));
      for (const piece of argumentPieces(call.arguments))
        writes.push(perChoice(() => ({ tool_calls: [{ index: k, function: { arguments: piece } }] })));
    });
  } else {
    head = perChoice(() => ({ role: 'assistant', content: '', refusal: null }));
    writes = plan.reply.deltas.map((piece) => perChoice(() => ({ content: piece })));
  }
  let tail: string;
  if (plan.flavour === 'perplexity') {
    const choices = Array.from({ length: plan.n }, (_, index) => ({
      index,
      delta: {},
      finish_reason: finishReason(plan),
    }));
    tail = dataFrame({
      id: plan.id,
      object: 'chat.completion.chunk',
      created: plan.created,
      model: plan.model,
      choices,
      ...plan.extras,
      usage: usageOf(plan),
    });
  } else {
    tail = perChoice(() => ({}), finishReason(plan));
    if (includeUsage) tail += chunk([], usageOf(plan));
  }
  tail += DONE_FRAME;
  if (writes.length === 0) return [head + tail];
  writes[0] = head + writes[0];
  writes[writes.length - 1] += tail;
  return writes;
}

/**
 * Perplexity's Sonar stream: every chunk carries the cumulative usage, the citations and search
 * results, and the text so far as `message` beside the `delta`; the last content chunk has the
 * finish reason; then `[DONE]`. `stream_options` makes no difference.
 */
function perplexityWrites(plan: ChatPlan): string[] {
  const finish = finishReason(plan);
  let text = '';
  const writes = plan.reply.deltas.map((piece, i) => {
    text += piece;
    const last = i === plan.reply.deltas.length - 1;
    const usage = chatUsage(plan.promptTokens, last ? completionTokens(plan) : tokensOf(text), 0);
    const choices = Array.from({ length: plan.n }, (_, index) => ({
      index,
      finish_reason: last ? finish : null,
      message: { role: 'assistant', content: text },
      delta: { role: 'assistant', content: piece },
    }));
    return dataFrame({
      id: plan.id,
      model: plan.model,
      created: plan.created,
      usage,
      ...plan.extras,
      object: 'chat.completion.chunk',
      choices,
    });
  });
  writes[writes.length - 1] += DONE_FRAME;
  return writes;
}
