import { describe, expect, it } from '@jest/globals';
import { signCall } from './gemini-signatures.js';
import type { JsonReply } from './types.js';
import { parseGenerateRequest, validateGeminiRequest } from './validate-gemini.js';

const messageOf = (reply: JsonReply | null): string | null =>
  reply === null ? null : (reply.body as { error: { message: string } }).error.message;

describe('parseGenerateRequest', () => {
  it('normalises proto names to JSON names, numbers in strings to numbers, enums to their names', () => {
    const parsed = parseGenerateRequest({
      contents: [{ parts: [{ text: 'hi' }] }],
      generation_config: { max_output_tokens: '12', thinking_config: { thinking_level: 'high' } },
      tool_config: { function_calling_config: { mode: 2 } },
    });
    expect(parsed).toEqual({
      request: {
        contents: [{ parts: [{ text: 'hi' }] }],
        generationConfig: { maxOutputTokens: 12, thinkingConfig: { thinkingLevel: 'HIGH' } },
        toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      },
    });
  });

  it('refuses an integer field given a fraction and bytes that are not base64', () => {
    const parsed = parseGenerateRequest({
      contents: [{ parts: [{ text: 'x', thoughtSignature: 'not base64!' }] }],
      generationConfig: { topK: 1.5 },
    });
    expect('refused' in parsed && messageOf(parsed.refused)).toBe(
      [
        `Invalid value at 'contents[0].parts[0].thought_signature' (TYPE_BYTES), "not base64!"`,
        `Invalid value at 'generation_config.top_k' (TYPE_INT32), 1.5`,
      ].join('\n'),
    );
  });
});

describe("Gemini 3's thought signature check", () => {
  const call = (location: string) => ({ name: 'get_weather', args: { location, unit: 'C' } });
  const signed = (location: string) => ({
    functionCall: call(location),
    thoughtSignature: signCall(call(location)),
  });
  const unsigned = (location: string) => ({ functionCall: call(location) });
  const result = { functionResponse: { name: 'get_weather', response: { t: 3 } } };
  const conversation = (...steps: object[][]) => ({
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Oslo and Bergen?' }] },
      ...steps.flatMap((parts) => [
        { role: 'model', parts },
        { role: 'user', parts: parts.map(() => result) },
      ]),
    ],
  });

  it("accepts the mock's own signature whatever the key order the client sends the arguments in", () => {
    const reordered = {
      ...signed('Oslo'),
      functionCall: { name: 'get_weather', args: { unit: 'C', location: 'Oslo' } },
    };
    expect(validateGeminiRequest(conversation([reordered]), 'gemini-3-pro-preview')).toBeNull();
  });

  it('wants the first call of every step of the current turn signed, and only the first', () => {
    const ok = conversation([signed('Oslo'), unsigned('Bergen')], [signed('Bergen')]);
    expect(validateGeminiRequest(ok, 'gemini-3-flash-preview')).toBeNull();
    const secondStep = conversation([signed('Oslo')], [unsigned('Bergen')]);
    expect(messageOf(validateGeminiRequest(secondStep, 'gemini-3-pro-preview'))).toContain(
      'function call `default_api:get_weather` , position 4.',
    );
  });

  it('does not check calls of earlier turns, nor any call on Gemini 2.5', () => {
    const earlier = conversation([unsigned('Oslo')]);
    const later = {
      contents: [
        ...earlier.contents,
        { role: 'model', parts: [{ text: 'It is 3C.' }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
    };
    expect(validateGeminiRequest(later, 'gemini-3-pro-preview')).toBeNull();
    expect(validateGeminiRequest(earlier, 'gemini-2.5-pro')).toBeNull();
  });
});
