import { describe, expect, it } from '@jest/globals';
import { nativeHooks, withoutNullUsage } from './native-stream.js';

describe('native stream hooks', () => {
  it('take out the usage:null the gateway caused, wherever it sits', () => {
    expect(withoutNullUsage('data: {"id":"c","choices":[],"usage":null}\n\n')).toBe(
      'data: {"id":"c","choices":[]}\n\n',
    );
    expect(withoutNullUsage('data: {"usage": null, "id":"c"}\n\n')).toBe('data: { "id":"c"}\n\n');
    expect(
      withoutNullUsage(
        'data: {"choices":[{"delta":{"content":"\\"usage\\":null"}}],"usage":null,"o":"x"}\n\n',
      ),
    ).toBe('data: {"choices":[{"delta":{"content":"\\"usage\\":null"}}],"o":"x"}\n\n');
  });

  it('leave events alone when the client asked for usage', () => {
    const raw = 'data: {"id":"c","usage":null}\n\n';
    expect(nativeHooks('openai-chat', false).event(raw, '{"id":"c","usage":null}')).toBe(raw);
    expect(nativeHooks('openai-chat', true).event(raw, '{"id":"c","usage":null}')).toBe(
      'data: {"id":"c"}\n\n',
    );
  });

  it('end a broken stream with the format’s own error event', () => {
    expect(nativeHooks('anthropic', false).fail('boom')).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n',
    );
    const responses = nativeHooks('openai-responses', false);
    responses.event('event: a\ndata: {}\n\n', '{}');
    responses.event('event: b\ndata: {}\n\n', '{}');
    expect(JSON.parse(responses.fail('boom').split('data: ')[1]!)).toEqual({
      type: 'error',
      code: 'upstream_error',
      message: 'boom',
      param: null,
      sequence_number: 2,
    });
    expect(nativeHooks('openai-chat', false).fail('boom')).toMatch(
      /^data: \{"error":\{"message":"boom","type":"api_error"/,
    );
  });
});
