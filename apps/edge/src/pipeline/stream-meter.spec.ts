import { describe, expect, it } from '@jest/globals';
import { streamMeter } from './stream-meter.js';

const chunk = (extra: object): string =>
  JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [], ...extra });

describe('stream meters', () => {
  it('openai chat: reads the usage chunk, drops it unless asked, completes at [DONE]', () => {
    const meter = streamMeter('openai-chat', false);
    expect(meter.see(chunk({ choices: [{ index: 0, delta: { content: 'hi' } }], usage: null }))).toBe(true);
    expect(meter.see(chunk({ usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }))).toBe(
      false,
    );
    expect(meter.completed).toBe(false);
    expect(meter.see('[DONE]')).toBe(true);
    expect(meter).toMatchObject({
      completed: true,
      usageFinal: true,
      usage: { inputTokens: 5, outputTokens: 2 },
    });
  });

  it('openai chat: a finished choice completes a vendor stream that never says [DONE]', () => {
    const meter = streamMeter('openai-chat', false);
    meter.see(chunk({ choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] }));
    expect(meter.completed).toBe(false);
    meter.see(chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
    expect(meter.completed).toBe(true);
  });

  it('openai chat: keeps the usage chunk when the client asked for it', () => {
    const meter = streamMeter('openai-chat', true);
    expect(meter.see(chunk({ usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }))).toBe(
      true,
    );
  });

  it('responses: the terminal event completes the stream and carries usage', () => {
    const meter = streamMeter('openai-responses', true);
    meter.see(JSON.stringify({ type: 'response.output_text.delta', delta: 'x' }));
    expect(meter.completed).toBe(false);
    meter.see(
      JSON.stringify({
        type: 'response.completed',
        response: {
          usage: { input_tokens: 9, output_tokens: 4, input_tokens_details: { cached_tokens: 3 } },
        },
      }),
    );
    expect(meter).toMatchObject({
      completed: true,
      usage: { inputTokens: 9, outputTokens: 4, cachedTokens: 3 },
    });
  });

  it('anthropic: input from message_start (cache reads included), output from message_delta', () => {
    const meter = streamMeter('anthropic', false);
    meter.see(
      JSON.stringify({
        type: 'message_start',
        message: {
          usage: {
            input_tokens: 10,
            cache_read_input_tokens: 6,
            cache_creation_input_tokens: 2,
            output_tokens: 1,
          },
        },
      }),
    );
    expect(meter.usage).toEqual({ inputTokens: 18, outputTokens: 0, cachedTokens: 6 });
    expect(meter.usageFinal).toBe(false);
    meter.see(
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } }),
    );
    meter.see(
      JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn' },
        usage: { output_tokens: 12 },
      }),
    );
    expect(meter.usage).toEqual({ inputTokens: 18, outputTokens: 12, cachedTokens: 6 });
    expect(meter.completed).toBe(false);
    meter.see(JSON.stringify({ type: 'message_stop' }));
    expect(meter).toMatchObject({ completed: true, usageFinal: true });
  });
});
