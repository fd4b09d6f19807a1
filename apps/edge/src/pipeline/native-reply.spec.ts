import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { PROVIDER_ADAPTERS } from '#libs/providers';
import { type UpstreamCall } from '../upstream/failover.service.js';
import { nativeBodyReply } from './native-reply.js';

/** Google's answer to an API key it does not know: a 400, not a 401. */
const GOOGLE_BAD_KEY = JSON.stringify({
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
  },
});
const BAD_FIELD = JSON.stringify({
  error: {
    code: 400,
    message: 'Invalid JSON payload received. Unknown name "x"',
    status: 'INVALID_ARGUMENT',
  },
});

function answer(status: number, body: string): { up: UpstreamCall; buf: Buffer } {
  const adapter = PROVIDER_ADAPTERS.gemini;
  const up = {
    response: { statusCode: status, headers: {} },
    prepared: {
      native: adapter.native.generate_content,
      refusesCredentials: (s: number, b: Buffer) =>
        s === 401 || s === 403 || (adapter.refusesCredentials?.(s, b) ?? false),
      clientError: () => null,
    },
  } as unknown as UpstreamCall;
  return { up, buf: Buffer.from(body) };
}

describe('nativeBodyReply', () => {
  it("turns a provider's refusal of the gateway's own key into a gateway error, even as a 400", () => {
    const { up, buf } = answer(400, GOOGLE_BAD_KEY);
    let thrown: unknown;
    try {
      nativeBodyReply(up, buf);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect(thrown).toMatchObject({ code: 'upstream_error', status: 502 });
    expect((thrown as Error).message).toMatch(/credentials/);
  });

  it("passes the client's own request errors through in the vendor's shape", () => {
    const { up, buf } = answer(400, BAD_FIELD);
    expect(nativeBodyReply(up, buf)).toMatchObject({ status: 400, errorCode: 'upstream_request_error' });
  });
});
