import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { GatewayError, SseEventSplitter } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ChatChunk, type ChatMessage, type ChatRequest } from '../src/chat.js';
import { type SseEvent } from '../src/translation.js';
import { decodeCallId, encodeCallId } from './mapping.js';
import { geminiRequestOf } from './request.js';
import { geminiErrorMessage, hubCompletionOfGemini } from './response.js';
import { geminiStreamToHub } from './stream.js';
import { geminiCanonicalUsage, usageFromGeminiBody } from './usage.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = <T = Record<string, unknown>>(name: string): T => JSON.parse(fixture(name)) as T;

/** Splits SSE text into events the way the edge does (Google frames with CRLF). */
function sseEvents(text: string): SseEvent[] {
  return new SseEventSplitter().push(new TextEncoder().encode(text)).map((raw) => ({
    event: null,
    data: raw
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n'),
  }));
}

type Json = Record<string, unknown>;
const hub = (extra: Partial<ChatRequest> & Json = {}): ChatRequest => ({
  model: 'gemini',
  messages: [{ role: 'user', content: 'Hi' }],
  ...extra,
});
const body = (req: ChatRequest, adjust = new AdjustmentLog()): Json =>
  geminiRequestOf(req, 'gemini-2.5-flash', adjust).body;
const config = (req: ChatRequest): unknown => body(req).generationConfig;
const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object' } } }];

function rejects(req: ChatRequest, param: string, adjust = new AdjustmentLog()): void {
  let caught: unknown;
  try {
    body(req, adjust);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(GatewayError);
  expect((caught as GatewayError).code).toBe('invalid_request');
  expect((caught as GatewayError).details.param).toBe(param);
  expect((caught as GatewayError).message).toContain(param.split(' ')[0]);
}

const SIGNATURE = 'ivIhH57kkcWxC+y1Vjv8Hm+TQn7LyP4pVeXNjkbcjtS3wnZNKlpNdncG+F2GkAI=';

describe('geminiRequestOf', () => {
  it('translates a multi-turn tool conversation with images, search and thinking (golden)', () => {
    const log = new AdjustmentLog();
    const out = geminiRequestOf(json<ChatRequest>('provider-request.in.json'), 'gemini-2.5-flash', log);
    expect(out.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(out.headers).toEqual({});
    expect(out.body).toEqual(json('provider-request.out.json'));
    expect(log.items).toEqual([
      'dropped user',
      'dropped metadata',
      'dropped messages[3].reasoning_content',
      'carried tools[1] web_search as googleSearch',
      'dropped tools[1].search_context_size',
    ]);
  });

  it('puts the model in the path only, streaming or not', () => {
    const out = geminiRequestOf(hub({ stream: false }), 'gemini-2.5-pro');
    expect(out.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    expect(out.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it('maps every tool_choice onto functionCallingConfig', () => {
    const mode = (tool_choice: ChatRequest['tool_choice'], t = tools): unknown =>
      body(hub({ tools: t, tool_choice })).toolConfig;
    expect(mode('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(mode('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(mode('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(mode({ type: 'function', function: { name: 'f' } })).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] },
    });
    expect(mode(undefined)).toBeUndefined();
    expect(mode('auto', [])).toBeUndefined();
    rejects(hub({ tool_choice: 'required' }), 'tool_choice');
  });

  it('maps reasoning effort to thinking budgets with thought summaries; the hub thinking wins', () => {
    const thinking = (extra: Partial<ChatRequest>): unknown =>
      (config(hub(extra)) as Json | undefined)?.thinkingConfig;
    expect(thinking({ reasoning_effort: 'minimal' })).toEqual({ thinkingBudget: 512, includeThoughts: true });
    expect(thinking({ reasoning_effort: 'low' })).toEqual({ thinkingBudget: 1024, includeThoughts: true });
    expect(thinking({ reasoning_effort: 'medium' })).toEqual({ thinkingBudget: 8192, includeThoughts: true });
    expect(thinking({ reasoning_effort: 'high' })).toEqual({ thinkingBudget: 24576, includeThoughts: true });
    expect(
      thinking({ thinking: { type: 'enabled', budget_tokens: 3000 }, reasoning_effort: 'high' }),
    ).toEqual({
      thinkingBudget: 3000,
      includeThoughts: true,
    });
    expect(thinking({ thinking: { type: 'disabled' } })).toEqual({ thinkingBudget: 0 });
    expect(thinking({})).toBeUndefined();
    rejects(hub({ reasoning_effort: 'extreme' as 'high' }), 'reasoning_effort');
  });

  it('maps the sampling fields, leaving defaults out', () => {
    expect(
      config(
        hub({ max_tokens: 100, n: 2, seed: 7, presence_penalty: 0.5, frequency_penalty: -0.25, stop: 'x' }),
      ),
    ).toEqual({
      maxOutputTokens: 100,
      candidateCount: 2,
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.25,
      stopSequences: ['x'],
    });
    expect(config(hub({ max_completion_tokens: 50, max_tokens: 100 }))).toEqual({ maxOutputTokens: 50 });
    expect(config(hub({ n: 1, presence_penalty: 0, frequency_penalty: 0, stop: [] }))).toBeUndefined();
    rejects(hub({ stop: ['a', 'b', 'c', 'd', 'e', 'f'] }), 'stop');
    rejects(hub({ temperature: 2.5 }), 'temperature');
    rejects(hub({ max_tokens: 0 }), 'max_tokens');
  });

  it('maps response formats to JSON mode, with the schema as full JSON Schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    expect(
      config(hub({ response_format: { type: 'json_schema', json_schema: { name: 'x', schema } } })),
    ).toEqual({
      responseMimeType: 'application/json',
      responseJsonSchema: schema,
    });
    expect(config(hub({ response_format: { type: 'json_object' } }))).toEqual({
      responseMimeType: 'application/json',
    });
    expect(config(hub({ response_format: { type: 'text' } }))).toBeUndefined();
    rejects(hub({ response_format: { type: 'grammar' } }), 'response_format.type (grammar)');
  });

  it('refuses what Gemini cannot express, naming the field', () => {
    rejects(hub({ logprobs: true }), 'logprobs');
    rejects(hub({ top_logprobs: 3 }), 'top_logprobs');
    rejects(hub({ logit_bias: { '50256': -100 } }), 'logit_bias');
    rejects(hub({ functions: [{ name: 'f' }] }), 'functions');
    rejects(hub({ messages: [{ role: 'user', content: 'x', name: 'alice' }] }), 'messages[0].name');
    rejects(hub({ messages: [{ role: 'system', content: 'only instructions' }] }), 'messages');
    const image = (url: string): ChatMessage => ({
      role: 'user',
      content: [{ type: 'image_url', image_url: { url } }],
    });
    rejects(hub({ messages: [image('data:image/gif;base64,R0lG')] }), 'messages[0].content[0].image_url.url');
    rejects(hub({ messages: [image('http://example.com/a.png')] }), 'messages[0].content[0].image_url.url');
    const call = { id: 't', type: 'function' as const, function: { name: 'f', arguments: '{"a":' } };
    rejects(
      hub({ messages: [{ role: 'assistant', content: null, tool_calls: [call] }] }),
      'messages[0].tool_calls[0].function.arguments',
    );
    rejects(
      hub({
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'nope', content: 'r' },
        ],
      }),
      'messages[1].tool_call_id',
    );
  });

  it('drops hints and records them; strict translation refuses those that change the answer', () => {
    const log = new AdjustmentLog();
    const strictTool = [{ type: 'function' as const, function: { name: 'f', strict: true } }];
    const out = body(
      hub({
        store: true,
        service_tier: 'flex',
        prompt_cache_key: 'k',
        parallel_tool_calls: false,
        tools: strictTool,
        stream_options: { include_usage: true, include_obfuscation: false } as ChatRequest['stream_options'],
      }),
      log,
    );
    expect(out.tools).toEqual([{ functionDeclarations: [{ name: 'f' }] }]);
    expect(log.items).toEqual([
      'dropped store',
      'dropped service_tier',
      'dropped prompt_cache_key',
      'dropped stream_options.include_obfuscation',
      'dropped tools[0].function.strict',
      'dropped parallel_tool_calls',
    ]);
    rejects(hub({ tools, parallel_tool_calls: false }), 'parallel_tool_calls', new AdjustmentLog(true));
    const quiet = new AdjustmentLog(true);
    body(hub({ tools, parallel_tool_calls: true, stream_options: { include_usage: true } }), quiet);
    expect(quiet.items).toEqual([]);
  });

  it('merges turns of one role, puts function responses first and skips what holds nothing', () => {
    const calls = [{ id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '' } }];
    const out = body(
      hub({
        messages: [
          { role: 'user', content: 'a' },
          {
            role: 'user',
            content: [
              { type: 'text', text: '' },
              { type: 'text', text: 'b' },
            ],
          },
          { role: 'assistant', content: '', tool_calls: calls },
          { role: 'assistant', content: null },
          { role: 'user', content: 'after' },
          { role: 'tool', tool_call_id: 'c1', content: '[1, 2]' },
        ],
      }),
    );
    expect(out.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      {
        role: 'model',
        parts: [
          {
            functionCall: { id: 'c1', name: 'f', args: {} },
            // A call made by another model: Google's documented placeholder signature.
            thoughtSignature: 'skip_thought_signature_validator',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'c1', name: 'f', response: { result: '[1, 2]' } } },
          { text: 'after' },
        ],
      },
    ]);
  });

  it('sends an https image without a known extension with no type, for Google to read', () => {
    const url = 'https://cdn.example.com/i/123?size=large';
    const out = body(
      hub({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] }),
    );
    expect(out.contents).toEqual([{ role: 'user', parts: [{ fileData: { fileUri: url } }] }]);
  });

  it('puts back the thought signature an answer gave, on the call it came with', () => {
    const answer = hubCompletionOfGemini(json('provider-response.in.json'));
    const message = answer.choices[0]!.message;
    const history: ChatMessage[] = [
      { role: 'user', content: 'Weather in Lyon and Paris?' },
      { role: 'assistant', content: message.content, tool_calls: message.tool_calls! },
      ...message.tool_calls!.map((c): ChatMessage => ({
        role: 'tool',
        tool_call_id: c.id,
        content: '{"ok":true}',
      })),
    ];
    const contents = body(hub({ messages: history })).contents as { parts: Json[] }[];
    expect(contents[1]!.parts).toEqual([
      { text: 'Let me check both cities.' },
      {
        functionCall: { id: 'call_0', name: 'get_weather', args: { city: 'Lyon' } },
        thoughtSignature: SIGNATURE,
      },
      { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } },
    ]);
    expect(contents[2]!.parts.map((p) => (p.functionResponse as Json).id)).toEqual(['call_0', 'call_1']);
  });
});

describe('thought signature encoding', () => {
  const base64 = fc
    .uint8Array({ minLength: 1, maxLength: 300 })
    .map((b) => Buffer.from(b).toString('base64'));

  it('decodes what it encodes, whatever the call id holds', () => {
    fc.assert(
      fc.property(fc.string(), base64, (id, signature) => {
        expect(decodeCallId(encodeCallId(id, signature))).toEqual({ id, signature });
      }),
      { numRuns: 300 },
    );
  });

  it('leaves ids without a signature as they are', () => {
    expect(decodeCallId(encodeCallId('call_abc', undefined))).toEqual({ id: 'call_abc' });
    expect(decodeCallId('toolu_01__thought__not base64')).toEqual({ id: 'toolu_01__thought__not base64' });
    expect(decodeCallId('x__thought__abc')).toEqual({ id: 'x__thought__abc' });
  });
});

describe('hubCompletionOfGemini', () => {
  it('translates thoughts, text and parallel function calls with their signature (golden)', () => {
    expect(hubCompletionOfGemini(json('provider-response.in.json'))).toEqual(
      json('provider-response.out.json'),
    );
  });

  it('maps every finish reason', () => {
    const finish = (finishReason: string, parts: Json[] = [{ text: 'x' }]): unknown =>
      hubCompletionOfGemini({
        candidates: [{ content: { role: 'model', parts }, finishReason }],
        responseId: 'r',
      }).choices[0]!.finish_reason;
    expect(finish('STOP')).toBe('stop');
    expect(finish('STOP', [{ functionCall: { name: 'f', args: {} } }])).toBe('tool_calls');
    expect(finish('MAX_TOKENS')).toBe('length');
    for (const r of [
      'SAFETY',
      'RECITATION',
      'BLOCKLIST',
      'PROHIBITED_CONTENT',
      'SPII',
      'IMAGE_SAFETY',
      'LANGUAGE',
    ])
      expect(finish(r)).toBe('content_filter');
    for (const r of ['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS', 'OTHER'])
      expect(finish(r)).toBe('stop');
  });

  it('answers a blocked prompt with one empty choice filtered out', () => {
    const out = hubCompletionOfGemini({
      promptFeedback: { blockReason: 'SAFETY' },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'b',
    });
    expect(out.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null }, finish_reason: 'content_filter' },
    ]);
    expect(out.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 0,
      total_tokens: 9,
      prompt_tokens_details: { cached_tokens: 0 },
    });
  });

  it('orders candidates by index and numbers their calls apart', () => {
    const call = (city: string): Json => ({ functionCall: { name: 'w', args: { city } } });
    const out = hubCompletionOfGemini({
      candidates: [
        { index: 1, content: { parts: [call('B'), call('C')] }, finishReason: 'STOP' },
        { index: 0, content: { parts: [call('A')] }, finishReason: 'MAX_TOKENS' },
      ],
      responseId: 'r',
    });
    expect(
      out.choices.map((c) => [c.index, c.finish_reason, c.message.tool_calls?.map((t) => t.id)]),
    ).toEqual([
      [0, 'length', ['call_0']],
      [1, 'tool_calls', ['call_0', 'call_1']],
    ]);
  });

  it('derives a stable id when Google sends no responseId', () => {
    const answer = (text: string): string =>
      hubCompletionOfGemini({ candidates: [{ content: { parts: [{ text }] }, finishReason: 'STOP' }] }).id;
    expect(answer('a')).toMatch(/^gemini-[0-9a-f]{8}$/);
    expect(answer('a')).toBe(answer('a'));
    expect(answer('a')).not.toBe(answer('b'));
  });

  it('rejects a malformed body or a part the hub cannot hold as upstream_error', () => {
    const image = {
      candidates: [{ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } }],
    };
    for (const bad of [null, [], { candidates: 'x' }, {}, image]) {
      expect(() => hubCompletionOfGemini(bad)).toThrow(expect.objectContaining({ code: 'upstream_error' }));
    }
  });

  it("reads the message of Google's error body", () => {
    const error = { error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT' } };
    expect(geminiErrorMessage(error)).toBe('API key not valid.');
    expect(geminiErrorMessage([error])).toBe('API key not valid.');
    expect(geminiErrorMessage({ error: 'x' })).toBeNull();
    expect(geminiErrorMessage('Bad Gateway')).toBeNull();
  });
});

describe('geminiStreamToHub', () => {
  const run = (text: string): ChatChunk[] => {
    const t = geminiStreamToHub();
    return [...sseEvents(text).flatMap((e) => t.push(e)), ...t.end()];
  };
  const event = (data: Json): string => `data: ${JSON.stringify(data)}\r\n\r\n`;

  it('translates thoughts, text and parallel function calls event by event (golden)', () => {
    expect(run(fixture('provider-stream.sse'))).toEqual(json('provider-stream.events.json'));
  });

  it("turns an error event into an upstream_error carrying Google's message", () => {
    const t = geminiStreamToHub();
    t.push({ event: null, data: '{"candidates": [{"content": {"parts": [{"text": "Hel"}]}}]}' });
    expect(() =>
      t.push({
        event: null,
        data: '{"error": {"code": 503,"message": "The model is overloaded.","status": "UNAVAILABLE"}}',
      }),
    ).toThrow(expect.objectContaining({ code: 'upstream_error', message: 'The model is overloaded.' }));
  });

  it('fails a stream that ends before any finish reason, or sends an event that is not JSON', () => {
    const t = geminiStreamToHub();
    t.push({ event: null, data: '{"candidates": [{"content": {"parts": [{"text": "Hel"}]}}]}' });
    expect(() => t.end()).toThrow(expect.objectContaining({ code: 'upstream_error' }));
    expect(() => geminiStreamToHub().push({ event: null, data: '{"candid' })).toThrow(
      expect.objectContaining({ code: 'upstream_error' }),
    );
  });

  it('skips a lone signature, and takes the latest usage', () => {
    const chunks = run(
      event({
        candidates: [{ content: { parts: [{ text: 'Hi' }] } }],
        usageMetadata: { promptTokenCount: 4 },
        responseId: 'r',
      }) +
        event({
          candidates: [
            { content: { parts: [{ text: '', thoughtSignature: SIGNATURE }] }, finishReason: 'STOP' },
          ],
          usageMetadata: {
            promptTokenCount: 4,
            candidatesTokenCount: 1,
            thoughtsTokenCount: 2,
            totalTokenCount: 7,
          },
          responseId: 'r',
        }),
    );
    expect(chunks.map((c) => [c.choices[0]?.delta, c.choices[0]?.finish_reason])).toEqual([
      [{ role: 'assistant', content: '' }, null],
      [{ content: 'Hi' }, null],
      [{}, 'stop'],
      [undefined, undefined],
    ]);
    expect(chunks.at(-1)!.usage).toEqual({
      prompt_tokens: 4,
      completion_tokens: 3,
      total_tokens: 7,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
  });

  it('ends a blocked prompt with a filtered choice', () => {
    const chunks = run(
      event({
        promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
        usageMetadata: { promptTokenCount: 3 },
      }),
    );
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, 'content_filter', null]);
    expect(chunks[0]!.id).toMatch(/^gemini-/);
  });
});

describe('Gemini usage', () => {
  const counts = fc.record({
    promptTokenCount: fc.nat(100000),
    cachedContentTokenCount: fc.nat(100000),
    candidatesTokenCount: fc.nat(100000),
    toolUsePromptTokenCount: fc.nat(10000),
    thoughtsTokenCount: fc.nat(100000),
  });

  it("adds up to Google's total: tool-use prompt and thoughts on top, cache inside the prompt", () => {
    fc.assert(
      fc.property(counts, (m) => {
        const cached = Math.min(m.cachedContentTokenCount, m.promptTokenCount);
        const u = geminiCanonicalUsage({ ...m, cachedContentTokenCount: cached })!;
        expect(u.inputTokens).toBe(m.promptTokenCount + m.toolUsePromptTokenCount);
        expect(u.cachedTokens).toBe(cached);
        expect(u.outputTokens).toBe(m.candidatesTokenCount + m.thoughtsTokenCount);
        expect(u.reasoningTokens).toBe(m.thoughtsTokenCount);
        expect(u.inputTokens + u.outputTokens).toBe(
          m.promptTokenCount + m.toolUsePromptTokenCount + m.candidatesTokenCount + m.thoughtsTokenCount,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('reads a body, and no usage as null', () => {
    expect(usageFromGeminiBody(json('provider-response.in.json'))).toEqual({
      inputTokens: 1203,
      outputTokens: 186,
      cachedTokens: 1024,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 138,
    });
    expect(usageFromGeminiBody({ candidates: [] })).toBeNull();
    expect(usageFromGeminiBody({ usageMetadata: {} })).toBeNull();
    expect(usageFromGeminiBody('x')).toBeNull();
  });
});
