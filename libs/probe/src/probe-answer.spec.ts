import { Readable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { firstBytes, MAX_ERROR_CHARS, probeErrorText } from './probe-answer.js';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));

describe('probeErrorText', () => {
  it("an OpenAI-format refusal: the error body's message", () => {
    const body = json({
      error: { message: 'Incorrect API key provided: sk-***wxyz.', type: 'invalid_request_error' },
    });
    expect(probeErrorText({ type: 'openai' } as never, 401, {}, body)).toBe(
      'Incorrect API key provided: sk-***wxyz.',
    );
  });

  it("Anthropic's error shape, read by its own format", () => {
    const body = json({
      type: 'error',
      error: { type: 'authentication_error', message: 'invalid x-api-key' },
    });
    expect(probeErrorText({ type: 'anthropic' } as never, 401, {}, body)).toBe('invalid x-api-key');
  });

  it("Bedrock's refusal: the exception named in its header, then its message", () => {
    const body = json({ message: 'The security token included in the request is invalid.' });
    const headers = { 'x-amzn-errortype': 'UnrecognizedClientException:http://internal.amazon.com/' };
    expect(probeErrorText({ type: 'bedrock' } as never, 403, headers, body)).toBe(
      'UnrecognizedClientException: The security token included in the request is invalid.',
    );
  });

  it("a body that is not JSON (a proxy's page): its text, whitespace folded, bounded", () => {
    const page = Buffer.from(`<html>\n  <body>Bad   gateway ${'x'.repeat(1000)}</body></html>`);
    const text = probeErrorText({ type: 'openai' } as never, 502, {}, page)!;
    expect(text.startsWith('<html> <body>Bad gateway x')).toBe(true);
    expect(text).toHaveLength(MAX_ERROR_CHARS);
    expect(text.endsWith('…')).toBe(true);
  });

  it('control characters are escaped, never passed to a page or a log', () => {
    const body = json({ error: { message: 'bad\u0000key\u001b[31m' } });
    const text = probeErrorText({ type: 'openai' } as never, 401, {}, body)!;
    expect([...text].some((c) => c.charCodeAt(0) < 0x20)).toBe(false);
    expect(text.startsWith('bad')).toBe(true);
  });

  it('null for a success, and for an error with an empty body', () => {
    expect(probeErrorText({ type: 'openai' } as never, 200, {}, json({ data: [] }))).toBeNull();
    expect(probeErrorText({ type: 'openai' } as never, 503, {}, Buffer.alloc(0))).toBeNull();
  });
});

describe('firstBytes', () => {
  it('reads up to the limit and stops there', async () => {
    const read: number[] = [];
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 10; i++) {
        read.push(i);
        yield Buffer.alloc(100, i);
      }
    }
    const head = await firstBytes(chunks(), 250);
    expect(head).toHaveLength(250);
    expect(read).toEqual([0, 1, 2]);
  });

  it('a body shorter than the limit whole', async () => {
    await expect(firstBytes(Readable.from([Buffer.from('ab'), Buffer.from('c')]), 10)).resolves.toEqual(
      Buffer.from('abc'),
    );
  });
});
