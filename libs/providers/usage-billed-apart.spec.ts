import { describe, expect, it } from '@jest/globals';
import * as anthropic from './anthropic/usage.js';
import { geminiCanonicalUsage } from './gemini/usage.js';
import * as openai from './openai/usage.js';
import { usageOfTotal } from './src/types.js';

/**
 * What vendors bill apart from text tokens, read into the canonical usage: web searches (a count,
 * billed per search) and uncached prompt audio (a part of the uncached input, billed at an audio
 * price) and billed characters (Vertex's text embedding models). A usage without them is the object
 * it was before they were counted.
 */

describe('web searches', () => {
  /** Anthropic's web search tool guide: the searches are in usage.server_tool_use. */
  const searched = {
    input_tokens: 105,
    output_tokens: 6039,
    cache_read_input_tokens: 7123,
    cache_creation_input_tokens: 7345,
    server_tool_use: { web_search_requests: 2 },
  };

  it('reads Anthropic server_tool_use.web_search_requests', () => {
    expect(anthropic.canonicalUsageOf(searched)).toMatchObject({
      inputTokens: 105 + 7123 + 7345,
      webSearchRequests: 2,
    });
  });

  it("takes a stream's count from message_delta", () => {
    const stream = new anthropic.AnthropicStreamUsage();
    stream.start({ input_tokens: 105, output_tokens: 1, server_tool_use: { web_search_requests: 0 } });
    expect(stream.usage).not.toHaveProperty('webSearchRequests');
    stream.delta({ output_tokens: 6039, server_tool_use: { web_search_requests: 2 } });
    expect(stream.usage).toMatchObject({ outputTokens: 6039, webSearchRequests: 2 });
  });

  it("reads Perplexity's num_search_queries", () => {
    const usage = { prompt_tokens: 19, completion_tokens: 498, total_tokens: 517, num_search_queries: 3 };
    expect(openai.usageFromOpenAI(usage)).toMatchObject({ webSearchRequests: 3 });
  });

  it('leaves a usage without searches as it was', () => {
    const { server_tool_use: _searches, ...plain } = searched;
    expect(anthropic.canonicalUsageOf(plain)).toEqual({
      inputTokens: 105 + 7123 + 7345,
      outputTokens: 6039,
      cachedTokens: 7123,
      cacheWrite5mTokens: 7345,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(anthropic.canonicalUsageOf({ ...plain, server_tool_use: { web_search_requests: 0 } })).toEqual(
      anthropic.canonicalUsageOf(plain),
    );
  });
});

describe('prompt audio', () => {
  it("reads Gemini's audio modality, less the audio read from the cache (counted apart)", () => {
    const meta = {
      promptTokenCount: 10_000,
      cachedContentTokenCount: 1500,
      candidatesTokenCount: 500,
      totalTokenCount: 10_500,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 6000 },
        { modality: 'AUDIO', tokenCount: 4000 },
      ],
      cacheTokensDetails: [
        { modality: 'TEXT', tokenCount: 1000 },
        { modality: 'AUDIO', tokenCount: 500 },
      ],
    };
    expect(geminiCanonicalUsage(meta)).toEqual({
      inputTokens: 10_000,
      outputTokens: 500,
      cachedTokens: 1500,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 3500,
      cachedAudioInputTokens: 500,
    });
  });

  it('counts the audio of a tool result read back in, and never more audio than uncached input', () => {
    const meta = {
      promptTokenCount: 100,
      toolUsePromptTokenCount: 50,
      candidatesTokenCount: 1,
      promptTokensDetails: [{ modality: 'AUDIO', tokenCount: 100 }],
      toolUsePromptTokensDetails: [{ modality: 'AUDIO', tokenCount: 80 }],
    };
    expect(geminiCanonicalUsage(meta)).toMatchObject({ inputTokens: 150, audioInputTokens: 150 });
  });

  it("reads OpenAI's prompt_tokens_details.audio_tokens as uncached audio", () => {
    const usage = {
      prompt_tokens: 1200,
      completion_tokens: 40,
      total_tokens: 1240,
      prompt_tokens_details: { cached_tokens: 100, audio_tokens: 800 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    };
    expect(openai.usageFromOpenAI(usage)).toMatchObject({ inputTokens: 1200, audioInputTokens: 800 });
    const text = { ...usage, prompt_tokens_details: { cached_tokens: 100, audio_tokens: 0 } };
    expect(openai.usageFromOpenAI(text)).not.toHaveProperty('audioInputTokens');
  });
});

describe('audio output and cached audio input (issue 31, item 6)', () => {
  it("reads OpenAI's completion_tokens_details.audio_tokens as the audio part of the output", () => {
    // gpt-4o-audio-preview answering with speech: the transcript's text tokens and the audio's.
    const usage = {
      prompt_tokens: 17_300,
      completion_tokens: 1000,
      total_tokens: 18_300,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 1000, text_tokens: 0 },
    };
    expect(openai.usageFromOpenAI(usage)).toEqual({
      inputTokens: 17_300,
      outputTokens: 1000,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioOutputTokens: 1000,
    });
    const text = { ...usage, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 } };
    expect(openai.usageFromOpenAI(text)).not.toHaveProperty('audioOutputTokens');
  });

  it("reads Gemini's cached audio and its audio output by modality", () => {
    const meta = {
      promptTokenCount: 10_000,
      cachedContentTokenCount: 1500,
      candidatesTokenCount: 800,
      thoughtsTokenCount: 200,
      promptTokensDetails: [
        { modality: 'TEXT', tokenCount: 6000 },
        { modality: 'AUDIO', tokenCount: 4000 },
      ],
      cacheTokensDetails: [
        { modality: 'TEXT', tokenCount: 1000 },
        { modality: 'AUDIO', tokenCount: 500 },
      ],
      candidatesTokensDetails: [{ modality: 'AUDIO', tokenCount: 800 }],
    };
    expect(geminiCanonicalUsage(meta)).toEqual({
      inputTokens: 10_000,
      outputTokens: 1000,
      cachedTokens: 1500,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 200,
      audioInputTokens: 3500,
      cachedAudioInputTokens: 500,
      audioOutputTokens: 800,
    });
  });

  it('never counts more cached audio than cache reads, nor more audio output than output', () => {
    expect(usageOfTotal(100, { cacheRead: 10, cachedAudio: 40, output: 5, audioOutput: 9 })).toMatchObject({
      cachedAudioInputTokens: 10,
      audioOutputTokens: 5,
    });
  });
});

describe('billed characters', () => {
  it('are carried beside the tokens, counted as counts are (whole, never negative)', () => {
    expect(usageOfTotal(11, { characters: 35 })).toMatchObject({ inputTokens: 11, inputCharacters: 35 });
    expect(usageOfTotal(11, { characters: 35.7 }).inputCharacters).toBe(35);
    for (const none of [0, -3, Number.NaN, undefined])
      expect(usageOfTotal(11, { characters: none as number })).not.toHaveProperty('inputCharacters');
  });

  it('are reported by no token-billed vendor', () => {
    const chat = { prompt_tokens: 19, completion_tokens: 4, total_tokens: 23 };
    expect(openai.usageFromOpenAI(chat)).not.toHaveProperty('inputCharacters');
    expect(anthropic.canonicalUsageOf({ input_tokens: 19, output_tokens: 4 })).not.toHaveProperty(
      'inputCharacters',
    );
    const gemini = { promptTokenCount: 19, candidatesTokenCount: 4, totalTokenCount: 23 };
    expect(geminiCanonicalUsage(gemini)).not.toHaveProperty('inputCharacters');
  });
});
