import { describe, expect, it } from '@jest/globals';
import { messagesWire } from './anthropic/index.js';
import { chatWire, responsesWire } from './openai/index.js';
import { type WireFormat } from './src/adapter.js';

const WIRES: Readonly<Record<string, WireFormat>> = {
  'openai-chat': chatWire,
  'openai-responses': responsesWire,
  anthropic: messagesWire,
};
const streamMeter = (wire: string, clientWantsUsage: boolean) => WIRES[wire]!.meter(clientWantsUsage);

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
      usage: {
        inputTokens: 9,
        outputTokens: 4,
        cachedTokens: 3,
        cacheWrite5mTokens: 0,
        cacheWrite1hTokens: 0,
        reasoningTokens: 0,
      },
    });
  });

  it('anthropic: input from message_start (cache reads and writes included), output from message_delta', () => {
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
    expect(meter.usage).toEqual({
      inputTokens: 18,
      outputTokens: 0,
      cachedTokens: 6,
      cacheWrite5mTokens: 2,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
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
    expect(meter.usage).toEqual({
      inputTokens: 18,
      outputTokens: 12,
      cachedTokens: 6,
      cacheWrite5mTokens: 2,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(meter.completed).toBe(false);
    meter.see(JSON.stringify({ type: 'message_stop' }));
    expect(meter).toMatchObject({ completed: true, usageFinal: true });
  });

  describe('facts: the response model and finish reasons', () => {
    const created = 1767225600;
    const chat = (choices: object[], extra: object = {}): string =>
      JSON.stringify({
        id: 'chatcmpl-Bx1',
        object: 'chat.completion.chunk',
        created,
        model: 'gpt-4o-mini-2024-07-18',
        system_fingerprint: 'fp_34a54ae93c',
        choices,
        usage: null,
        ...extra,
      });

    it('openai chat: from the finishing chunk, not the deltas; the usage chunk changes nothing', () => {
      const meter = streamMeter('openai-chat', false);
      meter.see(
        chat([
          {
            index: 0,
            delta: { role: 'assistant', content: '', refusal: null },
            logprobs: null,
            finish_reason: null,
          },
        ]),
      );
      // Text that spells a finish reason arrives escaped: no finish.
      meter.see(
        chat([
          { index: 0, delta: { content: 'say "finish_reason":"x"' }, logprobs: null, finish_reason: null },
        ]),
      );
      expect(meter.facts()).toBeNull();
      meter.see(chat([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
      meter.see(chat([], { usage: { prompt_tokens: 9, completion_tokens: 3, total_tokens: 12 } }));
      meter.see('[DONE]');
      expect(meter.facts()).toEqual({ model: 'gpt-4o-mini-2024-07-18', finishReasons: ['stop'] });
    });

    it('openai-compatible vendor: finish reason and usage on one chunk, no [DONE]', () => {
      const meter = streamMeter('openai-chat', false);
      meter.see(
        chat([{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }], {
          model: 'deepseek-chat',
        }),
      );
      const last = chat([{ index: 0, delta: { content: '' }, logprobs: null, finish_reason: 'length' }], {
        model: 'deepseek-chat',
        usage: {
          prompt_tokens: 11,
          completion_tokens: 5,
          total_tokens: 16,
          prompt_tokens_details: { cached_tokens: 0 },
          prompt_cache_hit_tokens: 0,
          prompt_cache_miss_tokens: 11,
        },
      });
      expect(meter.see(last)).toBe(true);
      expect(meter).toMatchObject({ completed: true, usage: { inputTokens: 11, outputTokens: 5 } });
      expect(meter.facts()).toEqual({ model: 'deepseek-chat', finishReasons: ['length'] });
    });

    it('openai chat, n = 2: each choice finishes on its own chunk, one reason each', () => {
      const meter = streamMeter('openai-chat', true);
      meter.see(chat([{ index: 1, delta: { content: 'b' }, logprobs: null, finish_reason: null }]));
      meter.see(chat([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]));
      meter.see(chat([{ index: 1, delta: { content: 'c' }, logprobs: null, finish_reason: null }]));
      meter.see(chat([{ index: 1, delta: {}, logprobs: null, finish_reason: 'length' }]));
      meter.see('[DONE]');
      expect(meter.facts()).toEqual({ model: 'gpt-4o-mini-2024-07-18', finishReasons: ['stop', 'length'] });
    });

    it('openai chat: an empty finish reason (a vendor\'s "not yet") is no reason', () => {
      const meter = streamMeter('openai-chat', false);
      meter.see(chat([{ index: 0, delta: { content: 'a' }, finish_reason: '' }], { model: 'qwen-plus' }));
      meter.see(chat([{ index: 0, delta: {}, finish_reason: 'stop' }], { model: 'qwen-plus' }));
      expect(meter.facts()).toEqual({ model: 'qwen-plus', finishReasons: ['stop'] });
    });

    it('legacy completions chunks: the same reader', () => {
      const meter = streamMeter('openai-chat', false);
      const text = (t: string, finish: string | null): string =>
        JSON.stringify({
          id: 'cmpl-9x',
          object: 'text_completion',
          created,
          choices: [{ text: t, index: 0, logprobs: null, finish_reason: finish }],
          model: 'gpt-3.5-turbo-instruct',
        });
      meter.see(text('Hello', null));
      meter.see(text('', 'length'));
      meter.see('[DONE]');
      expect(meter.facts()).toEqual({ model: 'gpt-3.5-turbo-instruct', finishReasons: ['length'] });
    });

    const terminal = (type: string, response: object): string =>
      JSON.stringify({
        type,
        sequence_number: 14,
        response: {
          id: 'resp_67ccd3a9da748190',
          object: 'response',
          created_at: created,
          model: 'gpt-4.1-2025-04-14',
          output: [],
          incomplete_details: null,
          usage: { input_tokens: 9, output_tokens: 4, total_tokens: 13 },
          ...response,
        },
      });

    it('responses: the status of response.completed, the reason of response.incomplete', () => {
      const done = streamMeter('openai-responses', true);
      done.see(
        JSON.stringify({
          type: 'response.created',
          sequence_number: 0,
          response: { object: 'response', status: 'in_progress', model: 'gpt-4.1-2025-04-14' },
        }),
      );
      done.see(JSON.stringify({ type: 'response.output_text.delta', sequence_number: 4, delta: 'Hi' }));
      expect(done.facts()).toBeNull();
      done.see(terminal('response.completed', { status: 'completed' }));
      expect(done.facts()).toEqual({ model: 'gpt-4.1-2025-04-14', finishReasons: ['completed'] });

      const cut = streamMeter('openai-responses', true);
      cut.see(
        terminal('response.incomplete', {
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
        }),
      );
      expect(cut.facts()).toEqual({ model: 'gpt-4.1-2025-04-14', finishReasons: ['max_output_tokens'] });

      const failed = streamMeter('openai-responses', true);
      failed.see(terminal('response.failed', { status: 'failed', error: { code: 'server_error' } }));
      expect(failed.facts()?.finishReasons).toEqual(['failed']);
    });

    it('anthropic: the model of message_start, the stop reason of message_delta', () => {
      const meter = streamMeter('anthropic', false);
      expect(meter.facts()).toBeNull();
      meter.see(
        JSON.stringify({
          type: 'message_start',
          message: {
            id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
            type: 'message',
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 25, output_tokens: 1 },
          },
        }),
      );
      // A cut stream still names its model.
      expect(meter.facts()).toEqual({ model: 'claude-sonnet-4-5-20250929', finishReasons: [] });
      meter.see(
        JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } }),
      );
      meter.see(
        JSON.stringify({
          type: 'message_delta',
          delta: { stop_reason: 'max_tokens', stop_sequence: null },
          usage: { output_tokens: 15 },
        }),
      );
      meter.see(JSON.stringify({ type: 'message_stop' }));
      expect(meter.facts()).toEqual({ model: 'claude-sonnet-4-5-20250929', finishReasons: ['max_tokens'] });
    });
  });
});
