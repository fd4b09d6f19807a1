import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { longestStallDuring, unbrokenWord } from '#libs/testing';
import { type JsonObject } from '../src/types.js';
import { countedBody, countGeminiTokens, countTokensAnswer } from './count-tokens.js';

const recorded = (name: string): JsonObject =>
  (JSON.parse(readFileSync(`test/fixtures/agents/${name}`, 'utf8')) as { body: JsonObject }).body;

const user = (text: string): JsonObject => ({ role: 'user', parts: [{ text }] });
const model = (parts: JsonObject[]): JsonObject => ({ role: 'model', parts });

describe('countGeminiTokens (for models no Gemini provider serves: an estimate)', () => {
  it('counts the recorded Gemini CLI countTokens bodies: text and an image, a tool result alone', async () => {
    // Gemini CLI counts a turn's new contents before sending it; the second holds a function
    // response with no call before it, which generateContent refuses and countTokens counts.
    const counts = await Promise.all(
      ['gemini-cli.count-tokens.1.json', 'gemini-cli.count-tokens.2.json'].map((n) =>
        countGeminiTokens(recorded(n), 'o200k'),
      ),
    );
    expect(counts).toEqual([25, 24]);
  });

  it('counts a whole recorded agent turn, its tool declarations included, the same way generateContent reads it', async () => {
    const turn = recorded('gemini-cli.generate-content.2.json');
    const withTools = await countGeminiTokens({ generateContentRequest: turn }, 'o200k');
    const without = await countGeminiTokens(
      { generateContentRequest: { ...turn, tools: undefined } },
      'o200k',
    );
    expect(withTools).toBeGreaterThan(without);
    expect(await countGeminiTokens({ contents: turn.contents }, 'o200k')).toBeLessThan(without);
  });

  it('counts the system instruction of a generateContentRequest, which wins over contents', async () => {
    const contents = [user('The quick brown fox jumps over the lazy dog.')];
    const plain = await countGeminiTokens({ contents }, 'o200k');
    const system = { parts: [{ text: 'You are a cat. Your name is Neko.' }] };
    const inner = { model: 'models/gemini-2.5-flash', contents, systemInstruction: system };
    expect(
      await countGeminiTokens(
        { contents: [user('ignored, and much longer than the rest')], generateContentRequest: inner },
        'o200k',
      ),
    ).toBe(plain + 4 + 11); // a message's framing, and the instruction's 11 o200k tokens
  });

  it('counts a conversation ending on a model turn (generateContent would refuse it)', async () => {
    const call = model([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]);
    const short = await countGeminiTokens({ contents: [user('Weather?')] }, 'o200k');
    expect(await countGeminiTokens({ contents: [user('Weather?'), call] }, 'o200k')).toBeGreaterThan(short);
  });

  it('refuses what the translation refuses, as generateContent would for the same model', async () => {
    const pdf = { role: 'user', parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } }] };
    await expect(countGeminiTokens({ contents: [pdf] }, 'o200k')).rejects.toMatchObject({
      code: 'invalid_request',
      details: { param: 'contents[0].parts[0].inlineData.mimeType (application/pdf)' },
    });
  });

  it('answers in Google’s shape', () => {
    expect(countTokensAnswer(42)).toEqual({ totalTokens: 42 });
    expect(countedBody({ contents: [user('a')] })).toEqual({ contents: [user('a')] });
  });
});

describe('countGeminiTokens on text without breaks (issue 19)', () => {
  it('counts 300 KB of one unbroken word with the event loop responsive', async () => {
    const body = (text: string): JsonObject => ({ contents: [user(text), model([{ text }])] });
    await countGeminiTokens(body(unbrokenWord(10_000, 2)), 'o200k'); // the tables' first load
    for (const word of ['a'.repeat(300_000), unbrokenWord(30_000)]) {
      const { result, stallMs } = await longestStallDuring(() => countGeminiTokens(body(word), 'o200k'));
      expect(stallMs).toBeLessThan(100);
      expect(result).toBeGreaterThan((2 * word.length) / 10);
    }
  }, 60_000);
});
