import { type ResponseFacts } from '../src/adapter.js';
import { parseObject } from '../src/content-parts.js';

/**
 * Model and finish reasons, for the GenAI span attributes, of chat and completions answers
 * (`choices[].finish_reason`) and of Responses answers (`status`, or `incomplete_details.reason`).
 * Only read while tracing; anything unexpected yields no facts, never an error.
 */
export function chatBodyFacts(b: Readonly<Record<string, unknown>>): ResponseFacts {
  return { model: stringOrNull(b.model), finishReasons: choiceReasons(b) };
}

export function responsesBodyFacts(b: Readonly<Record<string, unknown>>): ResponseFacts {
  const reason = responsesReason(b);
  return { model: stringOrNull(b.model), finishReasons: reason === null ? [] : [reason] };
}

/** A chat stream's finishing chunks (one per choice; every chunk names the model). */
export function chatStreamFacts(finishing: readonly string[]): ResponseFacts | null {
  let model: string | null = null;
  const reasons: string[] = [];
  for (const data of finishing) {
    const chunk = parseObject(data);
    if (chunk === null) continue;
    model ??= stringOrNull(chunk.model);
    reasons.push(...choiceReasons(chunk));
  }
  return model === null && reasons.length === 0 ? null : { model, finishReasons: reasons };
}

/** A Responses stream's terminal event (`response.completed`, `.incomplete`, `.failed`). */
export function responsesStreamFacts(terminal: string): ResponseFacts | null {
  const response = parseObject(terminal)?.response;
  if (typeof response !== 'object' || response === null) return null;
  return responsesBodyFacts(response as Record<string, unknown>);
}

/** Every choice's finish reason; an empty one (some vendors' "not yet") is no reason. */
function choiceReasons(b: Readonly<Record<string, unknown>>): string[] {
  const reasons: string[] = [];
  if (!Array.isArray(b.choices)) return reasons;
  for (const c of b.choices as unknown[]) {
    const r = (c as { finish_reason?: unknown } | null)?.finish_reason;
    if (typeof r === 'string' && r !== '') reasons.push(r);
  }
  return reasons;
}

/** Why a Responses answer ended: the incomplete reason (`max_output_tokens`), else its status. */
export function responsesReason(r: Readonly<Record<string, unknown>>): string | null {
  const incomplete = (r.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
  if (typeof incomplete === 'string') return incomplete;
  return typeof r.status === 'string' ? r.status : null;
}

const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
