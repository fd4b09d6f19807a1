/** What a provider's non-stream answer says about itself, for the GenAI span attributes. */
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
  if (buf === null || buf.length === 0 || buf[0] !== 0x7b) return null;
  let body: unknown;
  try {
    body = JSON.parse(buf.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  const reasons: string[] = [];
  if (Array.isArray(b.choices)) {
    for (const c of b.choices as unknown[]) {
      const r = (c as { finish_reason?: unknown } | null)?.finish_reason;
      if (typeof r === 'string') reasons.push(r);
    }
  }
  if (typeof b.stop_reason === 'string') reasons.push(b.stop_reason);
  if (b.object === 'response') {
    const incomplete = (b.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
    if (typeof incomplete === 'string') reasons.push(incomplete);
    else if (typeof b.status === 'string') reasons.push(b.status);
  }
  return { model: typeof b.model === 'string' ? b.model : null, finishReasons: reasons };
}
