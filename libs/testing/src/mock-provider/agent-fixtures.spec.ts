import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { validateGeminiCountTokensRequest } from './gemini-count-tokens.js';
import { signPart } from './gemini-signatures.js';
import type { JsonObject } from './types.js';
import { validateMessagesRequest } from './validate-anthropic.js';
import { validateGeminiRequest } from './validate-gemini.js';
import { validateChatRequest } from './validate-openai-chat.js';
import { validateResponsesRequest } from './validate-openai-responses.js';

/**
 * The vendors took every recorded agent request (test/fixtures/agents/README.md), so the mock
 * must too: a validator stricter than its vendor would fail the gateway for nothing.
 */
const DIR = join(dirname(fileURLToPath(import.meta.url)), '../../../../test/fixtures/agents');
const FIXTURES = readdirSync(DIR).filter((f) => f.endsWith('.json'));
const GEMINI_PATH = /^\/v1beta\/models\/([^:]+):(\w+)$/;

function validatorOf(path: string): (body: JsonObject) => unknown {
  const route = path.split('?')[0] as string;
  if (route === '/v1/messages') return validateMessagesRequest;
  if (route === '/v1/responses') return validateResponsesRequest;
  if (route === '/v1/chat/completions') {
    // opencode's requests went to an OpenAI-compatible server; OpenAI takes them as well.
    return (body) => validateChatRequest(body, 'compat') ?? validateChatRequest(body, 'openai');
  }
  const gemini = GEMINI_PATH.exec(route);
  if (gemini?.[2] === 'countTokens') return validateGeminiCountTokensRequest;
  if (gemini) return (body) => validateGeminiRequest(signedByMock(body), gemini[1] as string);
  throw new Error(`no validator for ${path}`);
}

/**
 * The Gemini CLI recordings carry the recording server's signatures, which Google (and the mock)
 * would not have issued: they are re-signed as if the mock had answered those turns (dummy
 * values the CLI sets itself stay as sent).
 */
function signedByMock(body: JsonObject): JsonObject {
  const contents = (body.contents as { role?: string; parts: Record<string, unknown>[] }[]).map((c) => ({
    ...c,
    parts: c.parts.map((p) =>
      typeof p.thoughtSignature === 'string' && !p.thoughtSignature.includes('_')
        ? { ...p, thoughtSignature: signPart(p) }
        : p,
    ),
  }));
  return { ...body, contents };
}

describe('recorded agent requests pass the validator of their vendor', () => {
  it('covers every fixture', () => {
    expect(FIXTURES.length).toBe(21);
  });

  it.each(FIXTURES)('%s', (file) => {
    const fixture = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as { path: string; body: JsonObject };
    expect(validatorOf(fixture.path)(fixture.body)).toBeNull();
  });

  it('refuses a Gemini 3 turn whose signature the mock did not issue, as Google would', () => {
    const file = join(DIR, 'gemini-cli.generate-content.4.json');
    const fixture = JSON.parse(readFileSync(file, 'utf8')) as { body: JsonObject };
    expect(validateGeminiRequest(fixture.body, 'gemini-3.8-flash')).toMatchObject({
      status: 400,
      body: { error: { message: 'Corrupted thought signature.' } },
    });
  });
});
