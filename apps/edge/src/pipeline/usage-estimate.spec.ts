import { describe, expect, it } from '@jest/globals';
import { estimatedBodyUsage, estimatedUsage, estimateInputTokens, OutputSampler } from './usage-estimate.js';
import { anthropic, openai } from '#libs/providers';

describe('cut-stream usage estimates (ceil(chars / 4))', () => {
  it('counts the prompt text, not image payloads', () => {
    const body = {
      model: 'm',
      system: 'abcd',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'efgh' },
            { type: 'image', source: { data: 'x'.repeat(4000) } },
          ],
        },
      ],
    };
    // 'abcd' + 'user' + 'text' + 'efgh' + 'image' = 21 characters
    expect(estimateInputTokens(body)).toBe(6);
  });

  it('reads the generated text of each wire format', () => {
    const chat = JSON.stringify({
      choices: [
        { index: 0, delta: { content: 'ab', tool_calls: [{ index: 0, function: { arguments: '{"' } }] } },
      ],
    });
    expect(openai.chatWire.outputText(chat)).toBe('ab{"');
    expect(openai.chatWire.outputText(JSON.stringify({ choices: [{ text: 'legacy' }] }))).toBe('legacy');
    expect(
      openai.responsesWire.outputText(JSON.stringify({ type: 'response.output_text.delta', delta: 'xy' })),
    ).toBe('xy');
    expect(
      anthropic.messagesWire.outputText(
        JSON.stringify({ type: 'content_block_delta', delta: { type: 'thinking_delta', thinking: 'hm' } }),
      ),
    ).toBe('hm');
    expect(anthropic.messagesWire.outputText('[DONE]')).toBe('');
  });

  it('keeps the input the upstream reported and estimates the output produced', async () => {
    const sampler = new OutputSampler(anthropic.messagesWire);
    for (let i = 0; i < 3; i++)
      sampler.push(
        JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'abc' } }),
      );
    expect(
      await estimatedUsage(
        {
          inputTokens: 40,
          outputTokens: 0,
          cachedTokens: 8,
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          reasoningTokens: 0,
        },
        {},
        sampler,
      ),
    ).toEqual({
      inputTokens: 40,
      outputTokens: 3,
      cachedTokens: 8,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(await estimatedUsage(null, { prompt: 'abcdefgh' }, new OutputSampler(openai.chatWire))).toEqual({
      inputTokens: 2,
      outputTokens: 0,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('extrapolates past the sample it keeps', () => {
    const sampler = new OutputSampler(openai.chatWire);
    const data = JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(1000) } }] });
    for (let i = 0; i < 200; i++) sampler.push(data);
    expect(sampler.outputTokens()).toBeGreaterThanOrEqual(49_000);
    expect(sampler.outputTokens()).toBeLessThanOrEqual(51_000);
  });
});

describe('usage of an answer body that reports none', () => {
  const request = { model: 'm', messages: [{ role: 'user', content: 'abcdefgh' }] };

  it('counts every generated string of each wire format, not its bookkeeping', () => {
    const chat = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      model: 'm',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'abcd',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
        },
      ],
    };
    // 'abcd' + 'f' + '{}' = 7 characters; ids, roles, types and the finish reason are not output.
    expect(estimatedBodyUsage(request, chat)).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    const anthropic = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      stop_reason: 'end_turn',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'c2lnbmF0dXJl'.repeat(20) },
        { type: 'text', text: 'done' },
      ],
    };
    expect(estimatedBodyUsage(request, anthropic).outputTokens).toBe(2); // 'hmm' + 'done'
    const responses = {
      id: 'resp_1',
      object: 'response',
      status: 'completed',
      output: [
        {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'abcdefghi', annotations: [] }],
        },
      ],
    };
    expect(estimatedBodyUsage(request, responses).outputTokens).toBe(3);
  });

  it('gives an embeddings answer, or an unreadable one, no output tokens but still the input', () => {
    const embeddings = { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }] };
    expect(estimatedBodyUsage({ model: 'e', input: 'abcdefgh' }, embeddings)).toEqual({
      inputTokens: 2,
      outputTokens: 0,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(estimatedBodyUsage(request, null).outputTokens).toBe(0);
  });
});
