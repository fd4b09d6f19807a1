import { describe, expect, it } from '@jest/globals';
import { responsesWire } from './openai/wire-format.js';
import { adapterOf } from './registry.js';

/**
 * Each vendor's refusal of a prompt too long for its model's window, as the vendor answers it
 * (the bodies are the vendors' own, from their error references and reported answers), is told
 * apart from its other 400s: only that refusal may send a request to a model with a larger window.
 */

const json = (body: unknown): Buffer => Buffer.from(JSON.stringify(body));

const openAIError = (message: string, code: string | null, param: string | null = 'messages') =>
  json({ error: { message, type: 'invalid_request_error', param, code } });

const OPENAI_CHAT = openAIError(
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 215230 tokens. Please reduce the length of the messages.",
  'context_length_exceeded',
);
const OPENAI_RESPONSES = openAIError(
  'Your input exceeds the context window of this model. Please adjust your input and try again.',
  'context_length_exceeded',
  'input',
);
const OPENAI_OTHER_400 = openAIError("Invalid type for 'temperature': expected a number.", 'invalid_type');
const VLLM = json({
  object: 'error',
  message:
    "This model's maximum context length is 32768 tokens. However, you requested 33980 tokens (33468 in the messages, 512 in the completion). Please reduce the length of the messages or completion.",
  type: 'BadRequestError',
  param: null,
  code: 400,
});
const ANTHROPIC_PROMPT = json({
  type: 'error',
  error: { type: 'invalid_request_error', message: 'prompt is too long: 215087 tokens > 200000 maximum' },
});
const ANTHROPIC_WITH_MAX_TOKENS = json({
  type: 'error',
  error: {
    type: 'invalid_request_error',
    message:
      'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
  },
});
const ANTHROPIC_OTHER_400 = json({
  type: 'error',
  error: { type: 'invalid_request_error', message: 'messages: at least one message is required' },
});
const GEMINI = json({
  error: {
    code: 400,
    message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).',
    status: 'INVALID_ARGUMENT',
  },
});
const GEMINI_OTHER_400 = json({
  error: {
    code: 400,
    message: '* GenerateContentRequest.contents: contents is not specified',
    status: 'INVALID_ARGUMENT',
  },
});
const BEDROCK_CONVERSE = json({
  message: 'The model returned the following errors: Input is too long for requested model.',
});
const BEDROCK_OTHER_400 = json({ message: 'The provided model identifier is invalid.' });

describe('a prompt too long for the context window', () => {
  it.each([
    ['openai', 'gpt-4o', OPENAI_CHAT],
    ['openai', 'gpt-4o', OPENAI_RESPONSES],
    ['azure-openai', 'gpt-4o', OPENAI_CHAT],
    ['perplexity', 'sonar', OPENAI_CHAT],
    ['openai-compatible', 'llama', OPENAI_CHAT],
    ['openai-compatible', 'llama', VLLM],
    ['anthropic', 'claude-sonnet-4-5', ANTHROPIC_PROMPT],
    ['anthropic', 'claude-sonnet-4-5', ANTHROPIC_WITH_MAX_TOKENS],
    ['gemini', 'gemini-2.5-pro', GEMINI],
    ['vertex', 'gemini-2.5-pro', GEMINI],
    ['vertex', 'claude-sonnet-4-5@20250929', ANTHROPIC_PROMPT],
    ['bedrock', 'amazon.nova-pro-v1:0', BEDROCK_CONVERSE],
    [
      'bedrock',
      'anthropic.claude-sonnet-4-5-20250929-v1:0',
      json({ message: 'prompt is too long: 200561 tokens > 200000 maximum' }),
    ],
  ] as const)('%s (%s) tells it apart', (type, model, body) => {
    expect(adapterOf(type, model).contextExceeded?.(400, body)).toBe(true);
  });

  it.each([
    ['openai', 'gpt-4o', OPENAI_OTHER_400, 400],
    ['openai', 'gpt-4o', OPENAI_CHAT, 500],
    ['openai', 'gpt-4o', Buffer.from('<html>context_length_exceeded</html>'), 400],
    ['openai-compatible', 'llama', OPENAI_OTHER_400, 400],
    ['anthropic', 'claude-sonnet-4-5', ANTHROPIC_OTHER_400, 400],
    [
      'anthropic',
      'claude-sonnet-4-5',
      json({
        type: 'error',
        error: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
      }),
      413,
    ],
    ['gemini', 'gemini-2.5-pro', GEMINI_OTHER_400, 400],
    ['vertex', 'claude-sonnet-4-5@20250929', GEMINI, 400],
    ['bedrock', 'amazon.nova-pro-v1:0', BEDROCK_OTHER_400, 400],
  ] as const)('%s (%s) takes another answer for what it is', (type, model, body, status) => {
    expect(adapterOf(type, model).contextExceeded?.(status, body) ?? false).toBe(false);
  });
});

describe("a Responses stream's opening", () => {
  const opening = responsesWire.opening!;
  const event = (type: string, extra: object = {}): string =>
    JSON.stringify({ type, sequence_number: 0, ...extra });

  it('waits through created, queued and in_progress', () => {
    for (const type of ['response.created', 'response.queued', 'response.in_progress'])
      expect(opening(event(type, { response: { status: 'in_progress' } }))).toBe('wait');
  });

  it('takes response.failed with context_length_exceeded as the refusal, whatever leads the payload', () => {
    const error = {
      code: 'context_length_exceeded',
      message: 'Your input exceeds the context window of this model.',
    };
    expect(opening(event('response.failed', { response: { status: 'failed', error } }))).toBe('too_long');
    expect(
      opening(JSON.stringify({ sequence_number: 2, type: 'response.failed', response: { error } })),
    ).toBe('too_long');
  });

  it('is under way at any other event, another failure included', () => {
    expect(opening(event('response.output_item.added'))).toBe('go');
    expect(opening(event('response.output_text.delta', { delta: 'response.created' }))).toBe('go');
    expect(opening(event('response.failed', { response: { error: { code: 'server_error' } } }))).toBe('go');
  });
});
