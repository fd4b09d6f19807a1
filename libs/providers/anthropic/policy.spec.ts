import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import * as openai from '../openai/index.js';
import { withCacheBreakpoints } from './cache-breakpoints.js';
import { anthropicProvider, messagesClient } from './index.js';

/** The translation policy of a Messages client served by an OpenAI-format provider (README.md). */
const base = { model: 'claude-sonnet-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };
const agent = (name: string): JsonObject =>
  (JSON.parse(readFileSync(`test/fixtures/agents/${name}`, 'utf8')) as { body: JsonObject }).body;

function translated(body: JsonObject, strict = false): { tools: string[]; items: readonly string[] } {
  const log = new AdjustmentLog(strict);
  const hub = messagesClient.toHub(body, log);
  return { tools: (hub.tools ?? []).map((t) => t.function.name), items: log.items };
}

function refusedParam(body: JsonObject): unknown {
  try {
    messagesClient.toHub(body, new AdjustmentLog(true));
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'invalid_request') return err.details.param;
    throw err;
  }
  throw new Error('expected a 400');
}

describe('messagesClient policy: Claude Code towards an OpenAI-format provider', () => {
  it('drops and records the hints of a real Claude Code tool turn, and keeps every tool it can call', () => {
    const body = agent('claude-code.messages.3.json');
    const { tools, items } = translated(body);
    expect(items).toEqual([
      'dropped context_management',
      'dropped tools[].defer_loading',
      'dropped cache_control (3 marks; the provider caches by itself)',
      'dropped thinking.display',
    ]);
    expect(tools).toEqual((body.tools as { name: string }[]).map((t) => t.name));
  });

  it('records opencode’s eager_input_streaming and cache marks', () => {
    expect(translated(agent('opencode.messages.3.json')).items).toEqual([
      'dropped tools[].eager_input_streaming',
      'dropped cache_control (3 marks; the provider caches by itself)',
    ]);
  });

  it('drops a server tool from the list and names it', () => {
    const web = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
    const fn = { name: 'f', input_schema: { type: 'object' } };
    expect(translated({ ...base, tools: [web, fn] })).toEqual({
      tools: ['f'],
      items: ['dropped tools[0] web_search_20250305'],
    });
    expect(translated({ ...base, tools: [web] }).tools).toEqual([]);
  });

  it('records nothing for a plain request', () => {
    expect(translated(base).items).toEqual([]);
  });

  it('refuses instead of dropping under translation: strict, naming the field', () => {
    expect(refusedParam({ ...base, context_management: { edits: [] } })).toBe('context_management');
    const web = { type: 'web_search_20250305', name: 'web_search' };
    expect(refusedParam({ ...base, tools: [web] })).toBe('tools.0.type (web_search_20250305)');
  });

  it('still drops caching marks under strict: they were never a reason for a 400', () => {
    const marked = { ...base, system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }] };
    expect(translated(marked, true).items).toEqual([
      'dropped cache_control (1 marks; the provider caches by itself)',
    ]);
  });
});

describe('anthropicProvider policy: OpenAI-format clients towards Anthropic', () => {
  const opencode = agent('opencode.chat-completions.3.json');

  it('marks tools, system and the conversation so far for caching, and records it', () => {
    const log = new AdjustmentLog();
    const { body } = anthropicProvider.fromHub(openai.chatClient.toHub(opencode, log), 'claude-x', log);
    const tools = body.tools as JsonObject[];
    expect(tools.filter((t) => t.cache_control).map((t) => t.name)).toEqual([tools.at(-1)!.name]);
    expect((body.system as JsonObject[]).at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
    const last = (body.messages as { content: JsonObject[] }[]).at(-1)!;
    expect(last.content.at(-1)).toMatchObject({ cache_control: { type: 'ephemeral' } });
    expect(JSON.stringify(body).match(/cache_control/g)).toHaveLength(3);
    expect(log.items).toEqual(['added cache_control breakpoints (tools, system, messages)']);
  });

  it('never marks a thinking block, and marks nothing in an empty request part', () => {
    const { body, placed } = withCacheBreakpoints({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'a' },
            { type: 'thinking', thinking: 't', signature: 's' },
          ],
        },
      ],
    });
    expect(placed).toEqual(['messages']);
    expect((body.messages as { content: JsonObject[] }[])[0]!.content).toEqual([
      { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
      { type: 'thinking', thinking: 't', signature: 's' },
    ]);
  });

  it('records the OpenAI-only fields it drops', () => {
    const log = new AdjustmentLog();
    const hub = openai.chatClient.toHub({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      store: true,
      prompt_cache_key: 'k',
    });
    anthropicProvider.fromHub(hub, 'claude-x', log);
    expect(log.items).toEqual([
      'dropped store',
      'dropped prompt_cache_key',
      'added cache_control breakpoints (messages)',
    ]);
  });
});
