import { describe, expect, it } from '@jest/globals';
import { messagesWire } from './anthropic/index.js';
import { chatRoute, chatWire, responsesRoute, responsesWire, withoutNullUsage } from './openai/index.js';
import { PROVIDER_ADAPTERS } from './registry.js';

describe('native chat routes', () => {
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

  it('only chat-era routes ask for usage on the client’s behalf', () => {
    expect(chatRoute.withoutUnaskedUsage).toBe(withoutNullUsage);
    expect(responsesRoute.withoutUnaskedUsage).toBeUndefined();
  });
});

describe('wire formats end a broken stream with their own error event', () => {
  it('Anthropic: an error event', () => {
    expect(messagesWire.failEvent('boom', 3)).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n',
    );
    expect(messagesWire.isErrorEvent('{"type":"error","error":{}}')).toBe(true);
    expect(messagesWire.isErrorEvent('{"type":"ping"}')).toBe(false);
  });

  it('Responses: an error event continuing the sequence numbers', () => {
    expect(JSON.parse(responsesWire.failEvent('boom', 2).split('data: ')[1]!)).toEqual({
      type: 'error',
      code: 'upstream_error',
      message: 'boom',
      param: null,
      sequence_number: 2,
    });
  });

  it('chat: a nameless error chunk', () => {
    expect(chatWire.failEvent('boom', 0)).toMatch(/^data: \{"error":\{"message":"boom","type":"api_error"/);
    expect(chatWire.isErrorEvent('{"error":{"message":"x"}}')).toBe(true);
  });
});

describe('native routes name the one member their usage is read from', () => {
  // One success body per vendor's usage shape, with other members around it.
  const bodies: Record<string, unknown>[] = [
    { id: 'a', choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } },
    { id: 'r', output: [], usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 } },
    { id: 'm', content: [], usage: { input_tokens: 5, output_tokens: 7 } },
    { candidates: [], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 7, totalTokenCount: 12 } },
  ];
  const routes = Object.entries(PROVIDER_ADAPTERS).flatMap(([type, adapter]) =>
    Object.entries(adapter.native).map(([api, route]) => [`${type} ${api}`, route!] as const),
  );

  it.each(routes)('%s: the member alone gives the usage the whole body gives', (_name, route) => {
    let charged = 0;
    for (const body of bodies) {
      const whole = route.usageOfBody(body);
      const member = route.usageMember === null ? {} : { [route.usageMember]: body[route.usageMember] };
      expect(route.usageOfBody(member)).toEqual(whole);
      if (whole !== null) charged++;
    }
    // A route that answers generations reads some vendor's shape; token counts read none.
    expect(charged > 0).toBe(route.usageMember !== null);
  });
});
