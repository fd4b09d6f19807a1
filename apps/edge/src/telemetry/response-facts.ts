/** What a provider's answer (a body, or a stream's rare events) says about itself, for the GenAI span attributes. */
export interface ResponseFacts {
  readonly model: string | null;
  readonly finishReasons: string[];
}

/**
 * Model and finish reasons of an upstream body in any of the wire formats: OpenAI chat and
 * completions (`choices[].finish_reason`), Anthropic messages (`stop_reason`), OpenAI responses
 * (`status`, or `incomplete_details.reason`). Only called while tracing, since it parses the body
 * a second time; anything unexpected yields no facts, never an error.
 */
export function responseFacts(buf: Buffer | null): ResponseFacts | null {
  const b = parseAnswer(buf);
  return b === null ? null : bodyFacts(b);
}

/** An upstream body as an object, or null when it is not a JSON object; never throws. */
export function parseAnswer(buf: Buffer | null): Record<string, unknown> | null {
  if (buf === null || buf.length === 0 || buf[0] !== 0x7b) return null;
  return parseObject(buf.toString('utf8'));
}

/** `responseFacts` of a body already parsed (content capture parses it once for both). */
export function bodyFacts(b: Record<string, unknown>): ResponseFacts {
  const reasons = choiceReasons(b);
  if (typeof b.stop_reason === 'string') reasons.push(b.stop_reason);
  if (b.object === 'response') {
    const reason = responsesReason(b);
    if (reason !== null) reasons.push(reason);
  }
  return { model: stringOrNull(b.model), finishReasons: reasons };
}

/**
 * The same facts from an OpenAI chat or completions stream's finishing chunks (one per choice;
 * every chunk names the model): the stream's counterpart of a body's `choices[].finish_reason`.
 */
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

/** The same facts from a Responses stream's terminal event (`response.completed`, `.incomplete`, `.failed`). */
export function responsesStreamFacts(terminal: string): ResponseFacts | null {
  const response = parseObject(terminal)?.response;
  if (typeof response !== 'object' || response === null) return null;
  const r = response as Record<string, unknown>;
  const reason = responsesReason(r);
  return { model: stringOrNull(r.model), finishReasons: reason === null ? [] : [reason] };
}

/** `text` as a JSON object, or null (not JSON, or not an object); never throws. */
export function parseObject(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** Every choice's finish reason; an empty one (some vendors' "not yet") is no reason. */
function choiceReasons(b: Record<string, unknown>): string[] {
  const reasons: string[] = [];
  if (!Array.isArray(b.choices)) return reasons;
  for (const c of b.choices as unknown[]) {
    const r = (c as { finish_reason?: unknown } | null)?.finish_reason;
    if (typeof r === 'string' && r !== '') reasons.push(r);
  }
  return reasons;
}

/** Why a Responses answer ended: the incomplete reason (`max_output_tokens`), else its status. */
export function responsesReason(r: Record<string, unknown>): string | null {
  const incomplete = (r.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
  if (typeof incomplete === 'string') return incomplete;
  return typeof r.status === 'string' ? r.status : null;
}

const stringOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
