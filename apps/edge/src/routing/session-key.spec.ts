import { readdirSync, readFileSync } from 'node:fs';
import { type IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from '@jest/globals';
import { type ClientApi, CLIENT_APIS, type JsonObject } from '#libs/providers';
import { sessionHash } from '#libs/routing';
import { MAX_SESSION_KEY_CHARS, requestSession } from './session-key.js';

/** The requests real agents sent (test/fixtures/agents/README.md), as recorded. */
interface AgentRequest {
  readonly file: string;
  readonly agent: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: JsonObject;
}

const DIR = 'test/fixtures/agents';
const fixtures: AgentRequest[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((file) => ({
    file,
    ...(JSON.parse(readFileSync(`${DIR}/${file}`, 'utf8')) as Omit<AgentRequest, 'file'>),
  }));

function apiOf(path: string): ClientApi {
  if (path.startsWith('/v1/messages')) return CLIENT_APIS.messages;
  if (path === '/v1/responses') return CLIENT_APIS.responses;
  if (path === '/v1/chat/completions') return CLIENT_APIS.chat;
  if (path.includes(':countTokens')) return CLIENT_APIS.count_content_tokens;
  return CLIENT_APIS.generate_content;
}

const sessionOf = (fx: AgentRequest, headers = fx.headers, body = fx.body): number | null =>
  requestSession(apiOf(fx.path), body, headers);

const fixture = (file: string): AgentRequest => fixtures.find((f) => f.file === file)!;

const without = (headers: IncomingHttpHeaders, ...names: string[]): IncomingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => !names.includes(k)));

describe('the agent session of a request (for provider stickiness)', () => {
  it('has fixtures of every agent', () => {
    expect(new Set(fixtures.map((f) => f.agent))).toEqual(
      new Set(['claude-code', 'codex', 'opencode', 'gemini-cli']),
    );
  });

  it.each([
    ['claude-code.messages.1.json', '4e32feea-d6e7-4377-95dd-dc1899eebcde'],
    ['claude-code.messages.2.json', '7e1ded9e-82a7-4c41-898e-cd763b728434'],
    ['claude-code.messages.3.json', '7e1ded9e-82a7-4c41-898e-cd763b728434'],
    ['codex.responses.1.json', '01a20ed6-58c9-7f51-8d48-dc9ea4076518'],
    ['codex.responses.2.json', '01a20ed6-5c20-7211-ad3c-7f6f7db464a2'],
    ['codex.responses.3.json', '01a20ed6-5c20-7211-ad3c-7f6f7db464a2'],
    ['opencode.chat-completions.1.json', 'ses_df12993f3ffeZaOe6LhS3SU3vW'],
    ['opencode.chat-completions.3.json', 'ses_df12993f3ffeZaOe6LhS3SU3vW'],
    ['opencode.messages.1.json', 'ses_df1297632ffek4gRyWExdTJICi'],
    ['opencode.messages.3.json', 'ses_df1297632ffek4gRyWExdTJICi'],
  ])('%s: the session its agent named (%s), hashed', (file, id) => {
    expect(sessionOf(fixture(file))).toBe(sessionHash(id));
  });

  it('gives every turn of one recorded session the same hash, and two sessions different ones', () => {
    for (const agent of [
      'claude-code.messages',
      'codex.responses',
      'opencode.chat-completions',
      'opencode.messages',
    ]) {
      const turns = [1, 2, 3].map((n) => sessionOf(fixture(`${agent}.${n}.json`)));
      expect(turns.every((s) => s !== null)).toBe(true);
      // Claude Code's and Codex's turn 1 is a run of its own; opencode's title request is its session's.
      if (agent.startsWith('opencode')) expect(new Set(turns).size).toBe(1);
      else expect([turns[0] !== turns[1], turns[1] === turns[2]]).toEqual([true, true]);
    }
  });

  it('Claude Code without its header: metadata.user_id (device and session ids) as a whole', () => {
    const fx = fixture('claude-code.messages.2.json');
    const userId = (fx.body.metadata as { user_id: string }).user_id;
    const headers = without(fx.headers, 'x-claude-code-session-id');
    expect(sessionOf(fx, headers)).toBe(sessionHash(userId));
    expect(sessionOf(fixture('claude-code.messages.3.json'), headers)).toBe(sessionHash(userId));
  });

  it('Codex without prompt_cache_key: its session-id header, the same id', () => {
    const fx = fixture('codex.responses.2.json');
    const { prompt_cache_key: _key, ...body } = fx.body;
    expect(sessionOf(fx, fx.headers, body)).toBe(sessionHash('01a20ed6-5c20-7211-ad3c-7f6f7db464a2'));
  });

  it('a chat client naming prompt_cache_key: that key, before any session header', () => {
    const fx = fixture('opencode.chat-completions.2.json');
    expect(sessionOf(fx, fx.headers, { ...fx.body, prompt_cache_key: 'conv-42' })).toBe(
      sessionHash('conv-42'),
    );
  });

  it('x-session-id when x-session-affinity is absent', () => {
    const fx = fixture('opencode.messages.2.json');
    expect(sessionOf(fx, without(fx.headers, 'x-session-affinity'))).toBe(
      sessionHash('ses_df1297632ffek4gRyWExdTJICi'),
    );
  });

  it('Gemini CLI names no session (no header, no field): null, routed as before', () => {
    const gemini = fixtures.filter((f) => f.agent === 'gemini-cli');
    expect(gemini.length).toBeGreaterThan(5);
    for (const fx of gemini) expect(sessionOf(fx)).toBeNull();
  });

  it('a request naming no session, or an empty one: null', () => {
    const fx = fixture('opencode.chat-completions.1.json');
    const bare = without(fx.headers, 'x-session-affinity', 'x-session-id');
    expect(sessionOf(fx, bare)).toBeNull();
    expect(sessionOf(fx, { ...bare, 'x-session-affinity': '' })).toBeNull();
    expect(sessionOf(fx, bare, { ...fx.body, prompt_cache_key: '' })).toBeNull();
    expect(sessionOf(fx, bare, { ...fx.body, prompt_cache_key: 42 })).toBeNull();
  });

  it('a repeated header names no one session', () => {
    const fx = fixture('opencode.chat-completions.1.json');
    const bare = without(fx.headers, 'x-session-affinity', 'x-session-id');
    expect(sessionOf(fx, { ...bare, 'x-session-affinity': ['a', 'b'] as unknown as string })).toBeNull();
  });

  it(`takes keys up to ${MAX_SESSION_KEY_CHARS} characters and ignores longer ones`, () => {
    const fx = fixture('opencode.chat-completions.1.json');
    const bare = without(fx.headers, 'x-session-affinity', 'x-session-id');
    const longest = 'k'.repeat(MAX_SESSION_KEY_CHARS);
    expect(sessionOf(fx, { ...bare, 'x-session-affinity': longest })).toBe(sessionHash(longest));
    expect(sessionOf(fx, { ...bare, 'x-session-affinity': `${longest}k` })).toBeNull();
    // An over-long field of the API's own does not hide a usable header.
    const body = { ...fx.body, prompt_cache_key: `${longest}k` };
    expect(sessionOf(fx, { ...bare, 'x-session-id': 's1' }, body)).toBe(sessionHash('s1'));
  });
});
