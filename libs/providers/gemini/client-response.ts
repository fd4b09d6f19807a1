import {
  type ChatCompletionMessage,
  type ChatCompletion,
  type ChatFinishReason,
  type ChatUsage,
} from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { isObject, type Json, read, upstreamError } from './client-fields.js';
import { type GeminiFinishReason, type GeminiUsageMetadata } from './wire.js';

/**
 * Hub completion -> Google's GenerateContentResponse: one candidate per choice, parts in the
 * order Gemini writes them (thoughts, text, function calls), `modelVersion` the model the client
 * named and `responseId` the gateway's request id. Reasoning is shown as `thought: true` parts
 * only when the request asked for thoughts (`thinkingConfig.includeThoughts`), as Google does.
 * No `thoughtSignature` is made up: only Google can sign, and the client sends back what it got.
 */
export function geminiResponseOfCompletion(completion: ChatCompletion, ctx: ClientContext): JsonObject {
  const choices = completion.choices ?? [];
  if (choices.length === 0 || !choices.every((c) => isObject(c.message)))
    throw upstreamError('The provider returned a completion without a choice.');
  const thoughts = includeThoughtsOf(ctx.request);
  return {
    candidates: choices.map((c) =>
      candidateOf(
        partsOf(c.message, thoughts, ctx, c.index),
        geminiFinishReasonOf(c.finish_reason, c.message),
        c.index,
      ),
    ),
    ...(completion.usage ? { usageMetadata: geminiUsageOf(completion.usage) } : {}),
    modelVersion: ctx.model,
    responseId: ctx.requestId,
  };
}

/** Proto3 JSON leaves an empty list out: Google sends `content: {role: 'model'}` when nothing was written. */
export function candidateOf(
  parts: readonly Json[],
  finishReason: GeminiFinishReason | null,
  index: number,
): Json {
  return {
    content: parts.length > 0 ? { role: 'model', parts } : { role: 'model' },
    ...(finishReason ? { finishReason } : {}),
    index,
  };
}

function partsOf(
  message: ChatCompletionMessage,
  thoughts: boolean,
  ctx: ClientContext,
  choice: number,
): Json[] {
  const parts: Json[] = [];
  const reasoning = message.reasoning_content ?? thinkingText(message);
  if (thoughts && reasoning) parts.push({ text: reasoning, thought: true });
  if (typeof message.content === 'string' && message.content !== '') parts.push({ text: message.content });
  if (typeof message.refusal === 'string' && message.refusal !== '') parts.push({ text: message.refusal });
  (message.tool_calls ?? []).forEach((call, k) => {
    const id = call.id || `call_${ctx.requestId}_${choice}_${k}`;
    parts.push(functionCallPart(id, call.function.name, call.function.arguments));
  });
  return parts;
}

const thinkingText = (message: ChatCompletionMessage): string =>
  (message.thinking_blocks ?? []).map((b) => (b.type === 'thinking' ? b.thinking : '')).join('');

export function functionCallPart(id: string, name: string, args: string): Json {
  return { functionCall: { id, name, args: functionArgs(args) } };
}

/**
 * Arguments -> the `args` object Google's clients read. An empty string means none; anything
 * that is not a JSON object is an upstream error, never a call with its arguments emptied.
 */
export function functionArgs(args: string | undefined): Json {
  if (args === undefined || args === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    throw upstreamError('The provider returned function call arguments that are not valid JSON.');
  }
  if (!isObject(parsed))
    throw upstreamError('The provider returned function call arguments that are not a JSON object.');
  return parsed;
}

/**
 * Google says STOP after function calls too (it has no tool-use reason); a refusal, or a provider's
 * content filter, is SAFETY. An answer without a reason ended normally.
 */
export function geminiFinishReasonOf(
  finish: ChatFinishReason | null,
  message?: { readonly refusal?: string | null },
): GeminiFinishReason {
  if (finish === 'content_filter' || (typeof message?.refusal === 'string' && message.refusal !== ''))
    return 'SAFETY';
  return finish === 'length' ? 'MAX_TOKENS' : 'STOP';
}

/**
 * Hub usage -> usageMetadata in Google's convention: the prompt count includes the cached tokens,
 * the candidates count leaves out the thoughts (counted apart), and the total is their sum.
 */
export function geminiUsageOf(usage: ChatUsage): GeminiUsageMetadata {
  const prompt = count(usage.prompt_tokens);
  const completion = count(usage.completion_tokens);
  const thoughts = Math.min(count(usage.completion_tokens_details?.reasoning_tokens), completion);
  const cached = Math.min(count(usage.prompt_tokens_details?.cached_tokens), prompt);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: completion - thoughts,
    totalTokenCount: prompt + completion,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
  };
}

const count = (n: number | undefined): number =>
  typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0;

/** Whether the client asked to see the model's thoughts (either spelling, as Google reads it). */
export function includeThoughtsOf(request: JsonObject): boolean {
  const generation = read(request, 'generationConfig');
  const thinking = isObject(generation) ? read(generation, 'thinkingConfig') : undefined;
  return isObject(thinking) && read(thinking, 'includeThoughts') === true;
}
