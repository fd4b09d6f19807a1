import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { validateInvokeMessages } from '#libs/testing';
import { type JsonObject } from '../src/types.js';
import { bedrockAdapter } from './index.js';

/**
 * The recorded Messages requests of the agents (Claude Code, opencode) reach a Bedrock provider
 * natively, through InvokeModel: prepared, each is a body Bedrock takes (the mock's checks of
 * Bedrock's own rules, then Anthropic's), with every field the client sent but the model and
 * the stream flag. The translated agents (Codex, Gemini CLI) are rows of
 * src/translated-requests.spec.ts.
 */
const AGENTS_DIR = new URL('../../../test/fixtures/agents/', import.meta.url);
const MESSAGES = readdirSync(AGENTS_DIR)
  .filter((f) => f.endsWith('.json'))
  .map(
    (f) =>
      [
        f,
        JSON.parse(readFileSync(new URL(f, AGENTS_DIR), 'utf8')) as { path: string; body: JsonObject },
      ] as const,
  )
  .filter(([, fixture]) => fixture.path.split('?')[0] === '/v1/messages');

const route = bedrockAdapter.native.messages!;

describe('recorded Messages requests through InvokeModel', () => {
  it('include Claude Code', () => {
    expect(MESSAGES.filter(([name]) => name.startsWith('claude-code.')).length).toBe(3);
  });

  it.each(MESSAGES)('%s is a body Bedrock takes, the client fields kept', (_, fixture) => {
    const prepared = route.prepare(
      structuredClone(fixture.body),
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    expect(validateInvokeMessages(prepared.body)).toBeNull();
    const { model: _model, stream: _stream, ...kept } = fixture.body;
    expect(prepared.body).toEqual({ anthropic_version: 'bedrock-2023-05-31', ...kept });
  });
});
