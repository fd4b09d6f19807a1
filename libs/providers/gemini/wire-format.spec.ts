import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { countTokensRoute, generateContentRoute } from './native.js';
import { usageFromGeminiBody } from './usage.js';
import { geminiWire } from './wire-format.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = (name: string): Record<string, unknown> => JSON.parse(fixture(name)) as Record<string, unknown>;

/** The `data:` payloads of the recorded stream, in order. */
const payloads = (): string[] =>
  fixture('provider-stream.sse')
    .split('\r\n\r\n')
    .filter((e) => e !== '')
    .map((e) => e.slice('data: '.length));

const SIGNATURE = 'ivIhH57kkcWxC+y1Vjv8Hm+TQn7LyP4pVeXNjkbcjtS3wnZNKlpNdncG+F2GkAI=';

describe('geminiWire.meter', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('completes on the finishing event, with its usage final and the model and reason', () => {
    const meter = geminiWire.meter(false);
    const events = payloads();
    for (const data of events.slice(0, -1)) expect(meter.see(data)).toBe(true);
    expect(meter.completed).toBe(false);
    expect(meter.usageFinal).toBe(false);
    expect(meter.see(events.at(-1)!)).toBe(true);
    expect(meter.completed).toBe(true);
    expect(meter.usageFinal).toBe(true);
    expect(meter.usage).toEqual(usageFromGeminiBody(JSON.parse(events.at(-1)!)));
    expect(meter.usage?.outputTokens).toBe(186);
    expect(meter.facts()).toEqual({ model: 'gemini-2.5-flash', finishReasons: ['STOP'] });
  });

  it('keeps the latest usage of a cut stream, not final', () => {
    const meter = geminiWire.meter(true);
    for (const data of payloads().slice(0, 3)) meter.see(data);
    expect(meter.completed).toBe(false);
    expect(meter.usageFinal).toBe(false);
    expect(meter.usage).toEqual({
      inputTokens: 1203,
      outputTokens: 144,
      cachedTokens: 1024,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 138,
    });
    expect(meter.facts()).toEqual({ model: 'gemini-2.5-flash', finishReasons: [] });
  });

  it('parses nothing while it sees events, and an event once when asked', () => {
    const parse = jest.spyOn(JSON, 'parse');
    const meter = geminiWire.meter(false);
    for (const data of payloads()) meter.see(data);
    meter.see('{"candidates": [{"content": {"parts": [{"text": "no usage here"}]}}]}');
    expect(parse).not.toHaveBeenCalled();
    void meter.usage;
    void meter.usage;
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('knows nothing of a stream without usage or finish', () => {
    const meter = geminiWire.meter(false);
    meter.see('{"candidates": [{"content": {"parts": [{"text": "Hi"}]}}]}');
    expect(meter.usage).toBeNull();
    expect(meter.facts()).toBeNull();
  });
});

describe('geminiWire events', () => {
  it('reads the generated text of an event: texts, thoughts, calls', () => {
    const [thought, text, , calls] = payloads();
    expect(geminiWire.outputText(thought!)).toBe(
      '**Planning the answer**\n\nTwo cities, so two calls to get_weather.',
    );
    expect(geminiWire.outputText(text!)).toBe('Let me check ');
    expect(geminiWire.outputText(calls!)).toBe('get_weather{"city":"Lyon"}get_weather{"city":"Paris"}');
    expect(geminiWire.outputText('{"usageMetadata": {"promptTokenCount": 3}}')).toBe('');
    expect(geminiWire.outputText('not json')).toBe('');
  });

  it("recognises Google's error event, however it is spaced, and only it", () => {
    expect(
      geminiWire.isErrorEvent('{"error": {"code": 500,"message": "Internal error.","status": "INTERNAL"}}'),
    ).toBe(true);
    expect(geminiWire.isErrorEvent('{"error":{"code":429}}')).toBe(true);
    expect(
      geminiWire.isErrorEvent('{"candidates": [{"content": {"parts": [{"text": "{\\"error\\": 1}"}]}}]}'),
    ).toBe(false);
  });

  it("ends a broken stream with Google's own error event", () => {
    const event = geminiWire.failEvent('The upstream stream broke.', 7);
    expect(event).toBe(
      'data: {"error":{"code":500,"message":"The upstream stream broke.","status":"INTERNAL"}}\n\n',
    );
    const data = event.slice('data: '.length, -2);
    expect(geminiWire.isErrorEvent(data)).toBe(true);
    expect(JSON.parse(data)).toEqual({
      error: { code: 500, message: 'The upstream stream broke.', status: 'INTERNAL' },
    });
  });
});

describe('geminiWire bodies', () => {
  const body = json('provider-response.in.json');

  it('reads the facts and usage of a body', () => {
    expect(geminiWire.facts(body)).toEqual({ model: 'gemini-2.5-flash', finishReasons: ['STOP'] });
    expect(geminiWire.usageOfBody(body)?.inputTokens).toBe(1203);
  });

  it('captures a body in the conventions shapes, one message per candidate', () => {
    expect(geminiWire.outputMessages(body)).toEqual([
      {
        role: 'assistant',
        parts: [
          {
            type: 'reasoning',
            content:
              '**Checking both cities**\n\nThe user wants the weather in Lyon and in Paris, so I will call get_weather once for each.',
          },
          { type: 'text', content: 'Let me check both cities.' },
          { type: 'tool_call', id: null, name: 'get_weather', arguments: { city: 'Lyon' } },
          { type: 'tool_call', id: null, name: 'get_weather', arguments: { city: 'Paris' } },
        ],
        finish_reason: 'STOP',
      },
    ]);
    expect(geminiWire.outputMessages({ promptFeedback: { blockReason: 'SAFETY' } })).toBeNull();
  });

  it('captures media and leaves out a lone signature', () => {
    const parts = [
      { inlineData: { mimeType: 'image/png', data: 'AA==' } },
      { fileData: { mimeType: 'video/mp4', fileUri: 'https://example.com/v.mp4' } },
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { text: '', thoughtSignature: SIGNATURE },
    ];
    expect(geminiWire.outputMessages({ candidates: [{ content: { parts } }] })).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'AA==' },
          { type: 'uri', modality: 'video', mime_type: 'video/mp4', uri: 'https://example.com/v.mp4' },
          { type: 'executableCode' },
        ],
        finish_reason: 'error',
      },
    ]);
  });
});

describe('geminiWire.transcript', () => {
  it('puts a stream back together part by part', () => {
    const transcript = geminiWire.transcript();
    for (const data of payloads()) transcript.push(data);
    expect(transcript.messages()).toEqual([
      {
        role: 'assistant',
        parts: [
          {
            type: 'reasoning',
            content: '**Planning the answer**\n\nTwo cities, so two calls to get_weather.',
          },
          { type: 'text', content: 'Let me check both cities.' },
          { type: 'tool_call', id: null, name: 'get_weather', arguments: { city: 'Lyon' } },
          { type: 'tool_call', id: null, name: 'get_weather', arguments: { city: 'Paris' } },
        ],
        finish_reason: 'STOP',
      },
    ]);
  });

  it('marks a cut stream', () => {
    const transcript = geminiWire.transcript();
    for (const data of payloads().slice(0, 2)) transcript.push(data);
    expect(transcript.messages().map((m) => [m.parts.length, m.finish_reason])).toEqual([[2, 'error']]);
  });
});

describe('native routes', () => {
  it('passes a generateContent body through, the model in the path', () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
    expect(generateContentRoute.path('gemini-2.5-flash', false)).toBe(
      '/v1beta/models/gemini-2.5-flash:generateContent',
    );
    expect(generateContentRoute.path('gemini-2.5-flash', true)).toBe(
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(generateContentRoute.prepare(body, 'gemini-2.5-flash')).toEqual({ body, clientWantsUsage: true });
    expect(generateContentRoute.wire).toBe(geminiWire);
    expect(generateContentRoute.usageOfBody(json('provider-response.in.json'))?.outputTokens).toBe(186);
  });

  it('counts tokens for free, the nested request naming the upstream model', () => {
    expect(countTokensRoute.path('gemini-2.5-pro', false)).toBe('/v1beta/models/gemini-2.5-pro:countTokens');
    expect(countTokensRoute.wire).toBeNull();
    expect(countTokensRoute.usageOfBody({ totalTokens: 31 })).toBeNull();
    const contents = [{ role: 'user', parts: [{ text: 'Hi' }] }];
    expect(countTokensRoute.prepare({ contents }, 'gemini-2.5-pro').body).toEqual({ contents });
    const nested = { generateContentRequest: { model: 'models/my-alias', contents } };
    expect(countTokensRoute.prepare(nested, 'gemini-2.5-pro').body).toEqual({
      generateContentRequest: { model: 'models/gemini-2.5-pro', contents },
    });
  });
});
