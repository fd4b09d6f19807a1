import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { bedrock } from '#libs/providers';
import { MOCK_AWS_CREDENTIAL, MOCK_BEDROCK_API_KEY, type MockBedrock, startMockBedrock } from './server.js';

/** Drives the mock the way the gateway will: requests signed with @smithy/signature-v4, or a bearer key. */

const TEMPORARY = {
  accessKeyId: 'ASIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'temporary/secret',
  sessionToken: 'FwoGZXIvYXdzEXAMPLE',
};
let clock = new Date();
let mock: MockBedrock;

beforeAll(async () => {
  mock = await startMockBedrock({
    region: 'eu-west-1',
    credentials: [MOCK_AWS_CREDENTIAL, TEMPORARY],
    cacheReadTokens: 2048,
    cacheWriteTokens: 512,
    now: () => clock,
  });
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.reset();
  clock = new Date();
});

interface Sent {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

async function signedHeaders(
  path: string,
  body: string,
  opts: {
    secret?: string;
    at?: Date;
    credential?: typeof TEMPORARY | typeof MOCK_AWS_CREDENTIAL;
    region?: string;
  } = {},
): Promise<Record<string, string>> {
  const url = new URL(mock.url + path);
  const credential = opts.credential ?? MOCK_AWS_CREDENTIAL;
  const signer = new SignatureV4({
    credentials: { ...credential, secretAccessKey: opts.secret ?? credential.secretAccessKey },
    region: opts.region ?? 'eu-west-1',
    service: 'bedrock',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign(
    {
      method: 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: {},
      headers: { host: url.host, 'content-type': 'application/json', accept: 'application/json' },
      body,
    },
    { signingDate: opts.at ?? new Date() },
  );
  return signed.headers as Record<string, string>;
}

async function post(path: string, body: string, headers: Record<string, string>): Promise<Sent> {
  const res = await fetch(mock.url + path, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const converse = (stream = false): string =>
  `/model/${encodeURIComponent(MODEL)}/${stream ? 'converse-stream' : 'converse'}`;
const invoke = (stream = false): string =>
  `/model/${encodeURIComponent(MODEL)}/${stream ? 'invoke-with-response-stream' : 'invoke'}`;
const HELLO = JSON.stringify({
  system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
  messages: [{ role: 'user', content: [{ text: 'Hello there' }] }],
  inferenceConfig: { maxTokens: 100 },
});
const json = (s: Sent): Record<string, unknown> =>
  JSON.parse(s.bytes.toString('utf8')) as Record<string, unknown>;

describe('mock Bedrock: authentication as AWS checks it', () => {
  it('answers a correctly signed Converse request, with the cache tokens of its cachePoint', async () => {
    const res = await post(converse(), HELLO, await signedHeaders(converse(), HELLO));
    expect(res.status).toBe(200);
    const body = json(res);
    expect(body.stopReason).toBe('end_turn');
    const usage = body.usage as Record<string, number>;
    expect(usage.cacheReadInputTokens).toBeGreaterThan(0);
    expect(
      usage.inputTokens! + usage.cacheReadInputTokens! + usage.cacheWriteInputTokens! + usage.outputTokens!,
    ).toBe(usage.totalTokens);
  });

  it('refuses a wrong secret with InvalidSignatureException and AWS error body', async () => {
    const res = await post(
      converse(),
      HELLO,
      await signedHeaders(converse(), HELLO, { secret: 'not-the-secret' }),
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    expect(json(res)).toEqual({
      message:
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
    });
  });

  it('refuses a body modified after signing', async () => {
    const headers = await signedHeaders(converse(), HELLO);
    const res = await post(converse(), HELLO.replace('Hello there', 'Hello thar'), headers);
    expect(res.status).toBe(403);
    expect(res.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
  });

  it('refuses a signature older than 5 minutes', async () => {
    const at = new Date(Date.now() - 6 * 60 * 1000);
    const res = await post(converse(), HELLO, await signedHeaders(converse(), HELLO, { at }));
    expect(res.status).toBe(403);
    expect(String(json(res).message)).toMatch(
      /^Signature expired: \d{8}T\d{6}Z is now earlier than \d{8}T\d{6}Z \(\d{8}T\d{6}Z - 5 min\.\)$/,
    );
  });

  it('refuses an unknown key, a wrong region, and temporary credentials without their token', async () => {
    const unknown = { accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: 'x' };
    const a = await post(converse(), HELLO, await signedHeaders(converse(), HELLO, { credential: unknown }));
    expect(a.headers.get('x-amzn-errortype')).toMatch(/^UnrecognizedClientException:/);
    const b = await post(converse(), HELLO, await signedHeaders(converse(), HELLO, { region: 'us-east-1' }));
    expect(String(json(b).message)).toMatch(/^Credential should be scoped to a valid region/);
    const temporary = await signedHeaders(converse(), HELLO, { credential: TEMPORARY });
    expect((await post(converse(), HELLO, temporary)).status).toBe(200);
    const { 'x-amz-security-token': _token, ...withoutToken } = temporary;
    expect((await post(converse(), HELLO, withoutToken)).status).toBe(403);
  });

  it('takes a Bedrock API key as a bearer token, and refuses another', async () => {
    const ok = await post(converse(), HELLO, {
      authorization: `Bearer ${MOCK_BEDROCK_API_KEY}`,
      'content-type': 'application/json',
    });
    expect(ok.status).toBe(200);
    const bad = await post(converse(), HELLO, {
      authorization: 'Bearer ABSKwrong',
      'content-type': 'application/json',
    });
    expect(bad.status).toBe(403);
    expect(bad.headers.get('x-amzn-errortype')).toMatch(/^AccessDeniedException:/);
  });
});

describe('mock Bedrock: Converse', () => {
  const bearer = { authorization: `Bearer ${MOCK_BEDROCK_API_KEY}`, 'content-type': 'application/json' };

  it('refuses what Converse refuses, with ValidationException', async () => {
    const first = JSON.stringify({ messages: [{ role: 'assistant', content: [{ text: 'Hi' }] }] });
    const res = await post(converse(), first, bearer);
    expect(res.status).toBe(400);
    expect(res.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(json(res).message).toBe(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
    const blank = JSON.stringify({ messages: [{ role: 'user', content: [{ text: ' ' }] }] });
    expect(json(await post(converse(), blank, bearer)).message).toBe(
      'The text field in the ContentBlock object at messages.0.content.0 is blank. Add text to the text field, and try again.',
    );
  });

  it('streams real event-stream frames that decode, CRCs checked, into the Converse events', async () => {
    const res = await post(converse(true), HELLO, bearer);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    const decoder = bedrock.converseDecoder();
    const sse = decoder.push(res.bytes);
    decoder.end();
    const names = [...sse.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names[0]).toBe('messageStart');
    expect(names.slice(-2)).toEqual(['messageStop', 'metadata']);
    expect(sse).toContain('"cacheReadInputTokens":');
  });

  it('answers ThrottlingException 429 when told to', async () => {
    mock.throttleNext(1);
    const res = await post(converse(), HELLO, bearer);
    expect(res.status).toBe(429);
    expect(res.headers.get('x-amzn-errortype')).toMatch(/^ThrottlingException:/);
    expect(json(res).message).toBe('Too many requests, please wait before trying again.');
    expect((await post(converse(), HELLO, bearer)).status).toBe(200);
  });
});

describe('mock Bedrock: InvokeModel with the Messages body', () => {
  const bearer = { authorization: `Bearer ${MOCK_BEDROCK_API_KEY}`, 'content-type': 'application/json' };
  const messages = {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hi' }],
  };

  it('refuses model and stream in the body and unknown beta flags, in Bedrock words', async () => {
    const res = await post(invoke(), JSON.stringify({ ...messages, model: MODEL }), bearer);
    expect(res.status).toBe(400);
    expect(json(res).message).toBe(
      'Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.',
    );
    const beta = await post(
      invoke(),
      JSON.stringify({ ...messages, anthropic_beta: ['claude-code-20250219'] }),
      bearer,
    );
    expect([beta.status, json(beta).message]).toEqual([400, 'invalid beta flag']);
    const known = { ...messages, anthropic_beta: ['interleaved-thinking-2025-05-14'] };
    expect((await post(invoke(), JSON.stringify(known), bearer)).status).toBe(200);
    const { anthropic_version: _v, ...noVersion } = messages;
    expect(json(await post(invoke(), JSON.stringify(noVersion), bearer)).message).toMatch(
      /required key \[anthropic_version\] not found/,
    );
  });

  it("answers Anthropic's message, and streams its events in chunk frames", async () => {
    const res = await post(invoke(), JSON.stringify(messages), bearer);
    expect(res.status).toBe(200);
    expect(json(res)).toMatchObject({ type: 'message', model: MODEL, stop_reason: 'end_turn' });
    const stream = await post(invoke(true), JSON.stringify(messages), bearer);
    const decoder = bedrock.invokeMessagesDecoder();
    const sse = decoder.push(stream.bytes);
    decoder.end();
    const names = [...sse.matchAll(/^event: (\w+)$/gm)].map((m) => m[1]);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('message_stop');
    expect(sse).toContain('"amazon-bedrock-invocationMetrics"');
  });

  it('ends a stream with an exception frame when told to', async () => {
    mock.failStreamsAfter(2, 'modelStreamErrorException', 'The model stream failed.');
    const stream = await post(invoke(true), JSON.stringify(messages), bearer);
    const sse = bedrock.invokeMessagesDecoder().push(stream.bytes);
    expect(sse.trim().split('\n\n').at(-1)).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"The model stream failed."}}',
    );
  });
});
