import { GatewayError } from '#libs/protocol';
import {
  type CanonicalUsage,
  type ClientContext,
  type DirectAnswer,
  type DirectPlan,
  type HeaderMap,
} from '#libs/providers';

/** One upstream call of a direct attempt, ready to send. */
export interface DirectCall {
  /** Relative to the provider's base URL (its endpoint already applied). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * A candidate served by its adapter's own translator (`DirectRoute`): every call the request takes,
 * how many may be in flight at once, and how the answers become the client's.
 */
export interface DirectAttempt {
  readonly calls: readonly DirectCall[];
  readonly concurrency: number;
  readonly plan: DirectPlan;
  /** The provider's message in one of its error bodies (its hub format reads them). */
  readonly errorMessage: (body: unknown) => string | null;
}

/** The plan's calls serialized, each placed where the provider takes it, with the adapter's headers. */
export function directAttempt(
  plan: DirectPlan,
  headers: Readonly<Record<string, string>>,
  place: (path: string) => string,
  errorMessage: (body: unknown) => string | null,
): DirectAttempt {
  const calls = plan.calls.map((call) => ({
    path: place(call.path),
    headers: { ...headers, ...call.headers },
    body: JSON.stringify(call.body),
  }));
  return { calls, concurrency: plan.concurrency, plan, errorMessage };
}

/**
 * The answers of a direct attempt's calls as one body: a JSON array of `{"headers", "body"}` in
 * the order of the calls, each body the upstream's bytes as they came (not parsed here: the one
 * parse is the reply's, and a body that is no JSON makes the whole answer malformed, as it is).
 */
export function answersBody(answers: readonly { headers: HeaderMap; body: Buffer }[]): Buffer {
  const parts: Buffer[] = [Buffer.from('[')];
  answers.forEach((a, i) => {
    const head = `${i === 0 ? '' : ','}{"headers":${JSON.stringify(a.headers)},"body":`;
    parts.push(Buffer.from(head), a.body.length === 0 ? Buffer.from('null') : a.body, Buffer.from('}'));
  });
  parts.push(Buffer.from(']'));
  return Buffer.concat(parts);
}

/** The client's body and usage from the answers `answersBody` put together. */
export function directAnswer(
  attempt: DirectAttempt,
  buf: Buffer,
  ctx: ClientContext,
): { body: string; usage: CanonicalUsage | null } {
  let answers: DirectAnswer[];
  try {
    answers = JSON.parse(buf.toString('utf8')) as DirectAnswer[];
  } catch {
    throw new GatewayError('upstream_error', 'The provider returned a malformed response.');
  }
  if (!Array.isArray(answers) || answers.length !== attempt.calls.length)
    throw new GatewayError('upstream_error', 'The provider returned a malformed response.');
  const reply = attempt.plan.answer(answers, ctx);
  return { body: JSON.stringify(reply.body), usage: reply.usage };
}
