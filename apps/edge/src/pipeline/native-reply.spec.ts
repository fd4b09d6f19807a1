import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { PROVIDER_ADAPTERS } from '#libs/providers';
import { type UpstreamCall } from '../upstream/upstream-run.js';
import { nativeBodyReply } from './native-reply.js';

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
      clientError: () => null,
    },
  } as unknown as UpstreamCall;
  return { up, buf: Buffer.from(body) };
}

describe('nativeBodyReply', () => {
  it('never hands a client the upstream 401: the gateway error naming its credentials', () => {
    // The failover moves on from a refusal; this is the last guard if one ever reached a reply.
    const { up, buf } = answer(401, JSON.stringify({ error: { code: 401, message: 'no' } }));
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
