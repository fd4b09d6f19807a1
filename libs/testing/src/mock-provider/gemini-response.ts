/**
 * A plan as Google sends it: one GenerateContentResponse, or a stream of them (`alt=sse`: each
 * `data: {...}` then `\r\n\r\n`, no end marker; otherwise one JSON array written piece by piece).
 * Every chunk carries `modelVersion` and `responseId` and the prompt's usage; the last one the
 * finish reason and the full usage. Zero counts are left out, as proto3 JSON does.
 */
import type { GeminiPart } from '../../../providers/gemini/wire.js';
import type { GeminiPlan } from './gemini-plan.js';
import { signCall, signPart } from './gemini-signatures.js';
import { splitEvenly } from './text.js';

export type StreamFraming = 'sse' | 'array';

const finishReason = (plan: GeminiPlan): string => (plan.reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP');

/** The first call of a thinking model's turn carries the signature (later parallel calls do not). */
function callParts(plan: GeminiPlan): GeminiPart[] {
  return plan.calls.map(({ id, call }, i) => {
    const functionCall = { id, name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> };
    return { functionCall, ...(i === 0 && plan.thinking && { thoughtSignature: signCall(functionCall) }) };
  });
}

/** A thinking model signs its last text part. */
function textPart(plan: GeminiPlan, text: string, last: boolean): GeminiPart {
  const signed = last && plan.thinking;
  return { text, ...(signed && { thoughtSignature: signPart({ text: plan.reply.text }) }) };
}

function candidates(plan: GeminiPlan, parts: readonly GeminiPart[], final: boolean): object[] {
  const content = parts.length > 0 ? { parts, role: 'model' } : { role: 'model' };
  return Array.from({ length: plan.candidates }, (_, index) => ({
    content,
    ...(final && { finishReason: finishReason(plan) }),
    index,
  }));
}

const nonZero = (entries: Record<string, unknown>): object =>
  Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== 0 && v !== undefined));

function promptDetails(plan: GeminiPlan): object[] {
  const { prompt, images } = plan.usage;
  return [
    { modality: 'TEXT', tokenCount: prompt - images },
    ...(images > 0 ? [{ modality: 'IMAGE', tokenCount: images }] : []),
  ];
}

export function usageMetadata(plan: GeminiPlan, final: boolean): object {
  const { prompt, cached, candidates: output, thoughts } = plan.usage;
  if (!final)
    return { promptTokenCount: prompt, totalTokenCount: prompt, promptTokensDetails: promptDetails(plan) };
  return nonZero({
    promptTokenCount: prompt,
    candidatesTokenCount: output,
    totalTokenCount: prompt + output + thoughts,
    cachedContentTokenCount: cached,
    promptTokensDetails: promptDetails(plan),
    cacheTokensDetails: cached > 0 ? [{ modality: 'TEXT', tokenCount: cached }] : undefined,
    thoughtsTokenCount: thoughts,
  });
}

function response(
  plan: GeminiPlan,
  parts: readonly GeminiPart[],
  final: boolean,
  withUsage: boolean,
): object {
  return {
    candidates: candidates(plan, parts, final),
    ...(withUsage && { usageMetadata: usageMetadata(plan, final) }),
    modelVersion: plan.model,
    responseId: plan.responseId,
  };
}

/** The whole answer of `generateContent`. */
export function responseBody(plan: GeminiPlan, withUsage: boolean): object {
  const parts: GeminiPart[] = plan.thought === null ? [] : [{ text: plan.thought, thought: true }];
  if (plan.calls.length > 0) parts.push(...callParts(plan));
  else if (plan.reply.text !== '') parts.push(textPart(plan, plan.reply.text, true));
  return response(plan, parts, true, withUsage);
}

/** The chunks of `streamGenerateContent`: thoughts, then the text deltas (or the calls, whole). */
export function streamChunks(plan: GeminiPlan, withUsage: boolean): object[] {
  const chunks: object[] = [];
  for (const piece of plan.thought === null ? [] : splitEvenly(plan.thought, 2))
    chunks.push(response(plan, [{ text: piece, thought: true }], false, withUsage));
  const deltas = plan.calls.length > 0 ? [] : plan.reply.deltas;
  deltas.forEach((delta, i) => {
    const last = i === deltas.length - 1;
    chunks.push(response(plan, [textPart(plan, delta, last)], last, withUsage));
  });
  if (plan.calls.length > 0) chunks.push(response(plan, callParts(plan), true, withUsage));
  else if (deltas.length === 0) chunks.push(response(plan, [], true, withUsage));
  return chunks;
}

export function streamWrites(chunks: readonly object[], framing: StreamFraming): string[] {
  if (framing === 'sse') return chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`);
  return chunks.map(
    (c, i) => `${i === 0 ? '[' : ',\r\n'}${JSON.stringify(c)}${i === chunks.length - 1 ? ']' : ''}`,
  );
}
