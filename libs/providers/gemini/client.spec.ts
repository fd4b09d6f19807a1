import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import { geminiClient } from './client-api.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const json = <T = JsonObject>(name: string): T => JSON.parse(fixture(name)) as T;

const target = { model: 'gemini-2.5-flash', stream: false };
const user = (text: string): JsonObject => ({ role: 'user', parts: [{ text }] });
const base = { contents: [user('Hi')] };

function translated(body: JsonObject, strict = false): { hub: JsonObject; items: readonly string[] } {
  const log = new AdjustmentLog(strict);
  const hub = geminiClient.toHub(body, log, target) as unknown as JsonObject;
  return { hub, items: log.items };
}

function refused(body: JsonObject, strict = false): GatewayError {
  try {
    geminiClient.toHub(body, new AdjustmentLog(strict), target);
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'invalid_request') return err;
    throw err;
  }
  throw new Error('expected a 400');
}

const paramOf = (body: JsonObject, strict = false): unknown => refused(body, strict).details.param;

describe('geminiClient.toHub', () => {
  it('translates a sequential function-calling turn with thoughts and signatures (golden)', () => {
    const { hub, items } = translated(json('client-request.in.json'));
    const stream = geminiClient.toHub(json('client-request.in.json'), undefined, { ...target, stream: true });
    expect(stream).toEqual(json('client-request.out.json'));
    expect(hub).not.toHaveProperty('stream');
    expect(items).toEqual([
      'dropped safetySettings',
      'dropped contents[].parts[].thought (1 parts)',
      'dropped contents[].parts[].thoughtSignature (2 parts)',
      'dropped tools[].functionDeclarations[].parameters.propertyOrdering',
      'dropped generationConfig.topK',
    ]);
  });

  it('reads proto (snake_case) field names, images by data and by https URL (golden)', () => {
    expect(translated(json('client-image.in.json')).hub).toEqual(json('client-image.out.json'));
  });

  it('converts a responseSchema from Google’s OpenAPI subset to a JSON Schema response format (golden)', () => {
    const { hub, items } = translated(json('client-structured.in.json'));
    expect(hub).toEqual(json('client-structured.out.json'));
    expect(items).toEqual(['dropped generationConfig.responseSchema.propertyOrdering']);
  });

  it('takes the model and stream flag from the path', () => {
    const hub = geminiClient.toHub(base, undefined, { model: 'gemini-3-pro-preview', stream: true });
    expect([hub.model, hub.stream, hub.stream_options]).toEqual([
      'gemini-3-pro-preview',
      true,
      { include_usage: true },
    ]);
  });

  it('validates like Google, naming the field', () => {
    expect(paramOf({})).toBe('contents');
    expect(refused({}).message).toBe('* GenerateContentRequest.contents: contents is not specified');
    expect(paramOf({ contents: [] })).toBe('contents');
    expect(paramOf({ contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] })).toBe('contents[0].role');
    expect(paramOf({ contents: [{ role: 'user', parts: [] }] })).toBe('contents[0].parts');
    expect(paramOf({ contents: [{ parts: [{}] }] })).toBe('contents[0].parts[0].data');
    expect(paramOf({ contents: [{ parts: [{ text: 'a', thought: 'yes' }] }] })).toBe(
      'contents[0].parts[0].thought',
    );
    expect(
      paramOf({ contents: [{ parts: [{ text: 'a', inlineData: { mimeType: 'image/png', data: '' } }] }] }),
    ).toBe('contents[0].parts[0].inlineData');
    expect(refused({ ...base, bogus: 1 }).message).toBe(
      'Invalid JSON payload received. Unknown name "bogus": Cannot find field.',
    );
    expect(refused({ ...base, generationConfig: { temprature: 1 } }).message).toBe(
      `Invalid JSON payload received. Unknown name "temprature" at 'generation_config': Cannot find field.`,
    );
    expect(paramOf({ ...base, generationConfig: { maxOutputTokens: 1.5 } })).toBe(
      'generationConfig.maxOutputTokens',
    );
    expect(paramOf({ contents: [user('Hi'), { role: 'model', parts: [{ text: 'Hel' }] }] })).toBe(
      'contents[1].role',
    );
  });

  it('refuses what a provider of another format cannot express, naming the field', () => {
    const part = (p: JsonObject): JsonObject => ({ contents: [{ role: 'user', parts: [p] }] });
    expect(paramOf(part({ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } }))).toBe(
      'contents[0].parts[0].inlineData.mimeType (application/pdf)',
    );
    expect(paramOf(part({ fileData: { mimeType: 'image/png', fileUri: 'gs://bucket/cat.png' } }))).toBe(
      'contents[0].parts[0].fileData.fileUri (gs URI)',
    );
    const uploaded = 'https://generativelanguage.googleapis.com/v1beta/files/abc-123';
    expect(paramOf(part({ fileData: { mimeType: 'image/png', fileUri: uploaded } }))).toBe(
      'contents[0].parts[0].fileData.fileUri (a Gemini Files API file)',
    );
    expect(paramOf(part({ fileData: { mimeType: 'video/mp4', fileUri: 'https://youtu.be/x' } }))).toBe(
      'contents[0].parts[0].fileData.mimeType (video/mp4)',
    );
    expect(paramOf(part({ executableCode: { language: 'PYTHON', code: 'print(1)' } }))).toBe(
      'contents[0].parts[0].executableCode',
    );
    expect(paramOf({ ...base, cachedContent: 'cachedContents/abc' })).toBe('cachedContent');
    expect(paramOf({ ...base, generationConfig: { responseMimeType: 'text/x.enum' } })).toBe(
      'generationConfig.responseMimeType (text/x.enum)',
    );
    expect(paramOf({ ...base, generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } })).toBe(
      'generationConfig.responseModalities (IMAGE)',
    );
    expect(paramOf({ ...base, generationConfig: { responseLogprobs: true } })).toBe(
      'generationConfig.responseLogprobs',
    );
    const response = { functionResponse: { name: 'f', response: {}, parts: [{ inlineData: {} }] } };
    const call = { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] };
    expect(paramOf({ contents: [user('x'), call, { role: 'user', parts: [response] }] })).toBe(
      'contents[2].parts[0].functionResponse.parts',
    );
  });

  it('pairs responses to calls by id, else by name and order, as Google does', () => {
    const calls = {
      role: 'model',
      parts: [
        { functionCall: { name: 'weather', args: { city: 'Paris' } } },
        { functionCall: { name: 'time', args: {} } },
        { functionCall: { name: 'weather', args: { city: 'Oslo' } } },
      ],
    };
    // Gemini CLI makes up its own ids for calls that came without one.
    const responses = {
      role: 'user',
      parts: [
        { functionResponse: { name: 'time', response: { now: '12:00' } } },
        { functionResponse: { id: 'weather-1700000000-x', name: 'weather', response: { t: 18 } } },
        { functionResponse: { name: 'weather', response: { t: 9 } } },
      ],
    };
    const hub = geminiClient.toHub({ contents: [user('?'), calls, responses] }, undefined, target);
    expect(hub.messages.slice(1).map((m) => m.tool_call_id ?? m.tool_calls?.map((c) => c.id))).toEqual([
      ['call_1_0', 'call_1_1', 'call_1_2'],
      'call_1_1',
      'call_1_0',
      'call_1_2',
    ]);
    const withIds = {
      role: 'model',
      parts: [{ functionCall: { id: 'a1', name: 'weather', args: {} } }],
    };
    const answer = {
      role: 'user',
      parts: [{ functionResponse: { id: 'a1', name: 'weather', response: {} } }],
    };
    expect(
      geminiClient.toHub({ contents: [user('?'), withIds, answer] }, undefined, target).messages[2],
    ).toEqual({
      role: 'tool',
      tool_call_id: 'a1',
      content: '{}',
    });
    const orphan = { role: 'user', parts: [{ functionResponse: { name: 'weather', response: {} } }] };
    expect(refused({ contents: [orphan] }).message).toBe(
      'Please ensure that function response turn comes immediately after a function call turn.',
    );
  });

  it('maps thinking budgets and levels to the hub', () => {
    const thinking = (thinkingConfig: JsonObject): unknown => {
      const hub = geminiClient.toHub({ ...base, generationConfig: { thinkingConfig } }, undefined, target);
      return [hub.thinking, hub.reasoning_effort];
    };
    expect(thinking({ thinkingBudget: 0 })).toEqual([{ type: 'disabled' }, undefined]);
    expect(thinking({ thinkingBudget: -1 })).toEqual([undefined, 'medium']);
    expect(thinking({ thinkingBudget: 24576 })).toEqual([{ type: 'enabled', budget_tokens: 24576 }, 'high']);
    expect(thinking({ thinkingLevel: 'HIGH', includeThoughts: true })).toEqual([undefined, 'high']);
    expect(thinking({ thinkingLevel: 'minimal' })).toEqual([undefined, 'minimal']);
    const low = translated({ ...base, generationConfig: { thinkingConfig: { thinkingBudget: 512 } } });
    expect([low.hub.thinking, low.items]).toEqual([
      { type: 'enabled', budget_tokens: 1024 },
      ['carried generationConfig.thinkingConfig.thinkingBudget 512 as thinking budget 1024'],
    ]);
    expect(
      paramOf({ ...base, generationConfig: { thinkingConfig: { thinkingBudget: 9, thinkingLevel: 'LOW' } } }),
    ).toBe('generationConfig.thinkingConfig.thinkingLevel');
  });

  it('maps JSON mode without a schema, and a JSON Schema as is', () => {
    const format = (generationConfig: JsonObject): unknown =>
      geminiClient.toHub({ ...base, generationConfig }, undefined, target).response_format;
    expect(format({ responseMimeType: 'application/json' })).toEqual({ type: 'json_object' });
    const schema = { type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false };
    expect(format({ responseMimeType: 'application/json', responseJsonSchema: schema })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'response', schema },
    });
    expect(paramOf({ ...base, generationConfig: { responseSchema: { type: 'OBJECT' } } })).toBe(
      'generationConfig.responseMimeType',
    );
  });
});
