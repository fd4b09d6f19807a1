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
 * The answers of a direct attempt's calls as one body, in the order of the calls: a 4-byte length,
 * that many bytes of JSON listing each answer's headers and size, then the answers' bodies as they
 * came. Framed rather than one JSON document so that each body is parsed alone: a batch of
 * thousands of vectors never becomes one string of all of them.
 */
export function answersBody(answers: readonly { headers: HeaderMap; body: Buffer }[]): Buffer {
  const index = Buffer.from(
    JSON.stringify(answers.map((a) => ({ headers: a.headers, bytes: a.body.length }))),
  );
  const length = Buffer.alloc(4);
  length.writeUInt32BE(index.length);
  return Buffer.concat([length, index, ...answers.map((a) => a.body)]);
}

const malformed = (): GatewayError =>
  new GatewayError('upstream_error', 'The provider returned a malformed response.');

/** The answers `answersBody` framed, each body parsed (an empty one is null); throws `upstream_error`. */
function answersOf(buf: Buffer): DirectAnswer[] {
  try {
    const size = buf.readUInt32BE(0);
    const index = JSON.parse(buf.subarray(4, 4 + size).toString('utf8')) as {
      headers: HeaderMap;
      bytes: number;
    }[];
    let at = 4 + size;
    const answers = index.map(({ headers, bytes }) => {
      const body = buf.subarray(at, (at += bytes));
      return { headers, body: body.length === 0 ? null : (JSON.parse(body.toString('utf8')) as unknown) };
    });
    if (at !== buf.length) throw malformed();
    return answers;
  } catch {
    throw malformed();
  }
}

/** The client's body and usage from the answers `answersBody` put together. */
export function directAnswer(
  attempt: DirectAttempt,
  buf: Buffer,
  ctx: ClientContext,
): { body: string; usage: CanonicalUsage | null } {
  const answers = answersOf(buf);
  if (answers.length !== attempt.calls.length) throw malformed();
  const reply = attempt.plan.answer(answers, ctx);
  return { body: JSON.stringify(reply.body), usage: reply.usage };
}
