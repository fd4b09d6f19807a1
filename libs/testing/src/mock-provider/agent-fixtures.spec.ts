import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from './types.js';
import { validateMessagesRequest } from './validate-anthropic.js';
import { validateChatRequest } from './validate-openai-chat.js';
import { validateResponsesRequest } from './validate-openai-responses.js';

/**
 * The vendors took every recorded agent request (test/fixtures/agents/README.md), so the mock
 * must too: a validator stricter than its vendor would fail the gateway for nothing.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/agents');
const FIXTURES = readdirSync(DIR).filter((f) => f.endsWith('.json'));

function validatorOf(path: string): (body: JsonObject) => unknown {
  const route = path.split('?')[0];
  if (route === '/v1/messages') return validateMessagesRequest;
  if (route === '/v1/responses') return validateResponsesRequest;
  if (route === '/v1/chat/completions') {
    // opencode's requests went to an OpenAI-compatible server; OpenAI takes them as well.
    return (body) => validateChatRequest(body, 'compat') ?? validateChatRequest(body, 'openai');
  }
  throw new Error(`no validator for ${path}`);
}

describe('recorded agent requests pass the validator of their vendor', () => {
  it('covers every fixture', () => {
    expect(FIXTURES.length).toBe(12);
  });

  it.each(FIXTURES)('%s', (file) => {
    const fixture = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { path: string; body: JsonObject };
    expect(validatorOf(fixture.path)(fixture.body)).toBeNull();
  });
});
