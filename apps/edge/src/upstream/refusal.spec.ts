import { describe, expect, it } from '@jest/globals';
import { adapterOf, PROVIDER_ADAPTERS } from '#libs/providers';
import { MAX_REFUSAL_CHARS, refusalReader } from './refusal.js';

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

/** Google's answer to an API key it does not know: a 400, not a 401. */
const GOOGLE_BAD_KEY = json({
  error: {
    code: 400,
    message: 'API key not valid. Please pass a valid API key.',
    status: 'INVALID_ARGUMENT',
    details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }],
  },
});
const AZURE_BAD_KEY = json({
  error: {
    code: '401',
    message:
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
  },
});
const AWS_DENIED = {
  'x-amzn-errortype': 'AccessDeniedException:http://internal.amazon.com/coral/com.amazon.bedrock/',
};

describe('refusalReader: which answers refuse the gateway credentials, and why', () => {
  const azure = refusalReader(PROVIDER_ADAPTERS['azure-openai'], {} as never);
  const gemini = refusalReader(PROVIDER_ADAPTERS.gemini, {} as never);
  const bedrock = refusalReader(
    adapterOf('bedrock', 'anthropic.claude-sonnet-4-5-20250929-v1:0'),
    {} as never,
  );

  it("reads a 401/403 as a refusal in the vendor's own words, from its error body", () => {
    expect(azure(401, {}, AZURE_BAD_KEY)).toBe(
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    );
    const anthropic = refusalReader(PROVIDER_ADAPTERS.anthropic, {} as never);
    expect(
      anthropic(
        401,
        {},
        json({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }),
      ),
    ).toBe('invalid x-api-key');
  });

  it("takes the adapter's wording when it has one: AWS's exception and message", () => {
    const message =
      'User: arn:aws:iam::123456789012:user/gateway is not authorized to perform: bedrock:InvokeModel';
    expect(bedrock(403, AWS_DENIED, json({ Message: message }))).toBe(`AccessDeniedException: ${message}`);
  });

  it("reads a vendor's own refusal that is no 401/403 (Google's 400 API_KEY_INVALID), and nothing else", () => {
    expect(gemini(400, {}, GOOGLE_BAD_KEY)).toBe('API key not valid. Please pass a valid API key.');
    const badField = json({ error: { code: 400, message: 'Unknown name "x"', status: 'INVALID_ARGUMENT' } });
    expect(gemini(400, {}, badField)).toBeNull();
    for (const status of [400, 404, 413, 429, 500, 503])
      expect(azure(status, {}, json({ error: { message: 'x' } }))).toBeNull();
  });

  it('says nothing more than the status when the answer has no words (a proxy page, an empty body)', () => {
    expect(azure(403, {}, Buffer.from('<html>Forbidden</html>'))).toBe('');
    expect(azure(401, {}, Buffer.alloc(0))).toBe('');
    expect(bedrock(403, {}, Buffer.alloc(0))).toBe('');
  });

  it('bounds and escapes the words, as all recorded text', () => {
    const long = azure(401, {}, json({ error: { message: `a\u0000b${'x'.repeat(500)}` } }))!;
    expect(long.startsWith('a\\u0000bx')).toBe(true);
    expect(long).toHaveLength(MAX_REFUSAL_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});
