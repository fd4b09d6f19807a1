import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MOCK_AWS_CREDENTIAL, type MockBedrock, startMockBedrock } from '#libs/testing';
import { awsChain, type AwsIdentity, SigV4Auth } from './credential.js';
import { CredentialUnavailableError } from '#libs/credentials';

/** SigV4Auth signing requests that the mock Bedrock verifies (the signature recomputed). */

let mock: MockBedrock;
const TEMPORARY = {
  accessKeyId: 'ASIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'temporary/secret',
  sessionToken: 'FwoGZXIvYXdzEXAMPLE',
};
beforeAll(async () => {
  mock = await startMockBedrock({ region: 'eu-central-1', credentials: [MOCK_AWS_CREDENTIAL, TEMPORARY] });
});
afterAll(() => mock.close());

const PATH = `/model/${encodeURIComponent('global.anthropic.claude-sonnet-4-5-20250929-v1:0')}/converse`;
const BODY = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hello' }] }] });

async function send(auth: SigV4Auth, body = BODY): Promise<{ status: number; text: string }> {
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const signed = await auth.headers({ method: 'POST', url: mock.url + PATH, headers, body });
  const res = await fetch(mock.url + PATH, { method: 'POST', headers: { ...headers, ...signed }, body });
  return { status: res.status, text: await res.text() };
}

describe('SigV4Auth against the mock Bedrock', () => {
  it('signs requests Bedrock accepts, with static keys and with temporary credentials', async () => {
    const auth = new SigV4Auth(() => Promise.resolve(MOCK_AWS_CREDENTIAL), 'eu-central-1');
    await auth.start();
    expect(auth.failure).toBeNull();
    expect((await send(auth)).status).toBe(200);
    const expiring: AwsIdentity = { ...TEMPORARY, expiration: new Date(Date.now() + 3600_000) };
    const temporary = new SigV4Auth(() => Promise.resolve(expiring), 'eu-central-1');
    await temporary.start();
    const headers = await temporary.headers({
      method: 'POST',
      url: mock.url + PATH,
      headers: {},
      body: BODY,
    });
    expect(headers['x-amz-security-token']).toBe(TEMPORARY.sessionToken);
    expect((await send(temporary)).status).toBe(200);
    auth.close();
    temporary.close();
  });

  it('is refused with a wrong secret or the wrong region: the signature is really checked', async () => {
    const wrong = new SigV4Auth(
      () => Promise.resolve({ ...MOCK_AWS_CREDENTIAL, secretAccessKey: 'nope' }),
      'eu-central-1',
    );
    const refused = await send(wrong);
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/signature we calculated does not match/);
    const region = new SigV4Auth(() => Promise.resolve(MOCK_AWS_CREDENTIAL), 'us-west-2');
    expect((await send(region)).status).toBe(403);
    wrong.close();
    region.close();
  });

  it('shares one fetch of the identity between concurrent requests', async () => {
    let fetched = 0;
    const auth = new SigV4Auth(async () => {
      fetched++;
      await new Promise((r) => setTimeout(r, 20));
      return MOCK_AWS_CREDENTIAL;
    }, 'eu-central-1');
    const results = await Promise.all(Array.from({ length: 8 }, () => send(auth)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(fetched).toBe(1);
    auth.close();
  });

  it('records why the chain failed, and has no signature to give', async () => {
    const auth = new SigV4Auth(
      () => Promise.reject(new Error('Could not load credentials from any providers')),
      'eu-central-1',
    );
    await auth.start();
    expect(auth.failure).toBe('Could not load credentials from any providers');
    await expect(
      auth.headers({ method: 'POST', url: mock.url + PATH, headers: {}, body: BODY }),
    ).rejects.toBeInstanceOf(CredentialUnavailableError);
    auth.close();
  });

  it('takes the identity from the standard AWS chain (here its environment step)', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: MOCK_AWS_CREDENTIAL.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOCK_AWS_CREDENTIAL.secretAccessKey,
    });
    try {
      const auth = new SigV4Auth(awsChain(), 'eu-central-1');
      await auth.start();
      expect((await send(auth)).status).toBe(200);
      auth.close();
    } finally {
      for (const key of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
});
