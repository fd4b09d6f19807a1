import { describe, expect, it } from '@jest/globals';
import { azureRealtimeRoute } from '../azure-openai/realtime-route.js';
import { type ProviderSettings } from '../src/adapter.js';
import { openAIAdapter } from './adapter.js';
import { realtimeProtocol, usageFromRealtime } from './index.js';
import { fixtureJson, fixtureText } from './spec-support.js';

/** OpenAI's documented `response.done` (Realtime API reference, server events), as it sends it. */
const DONE = fixtureText('realtime/response-done.json');

describe('realtime usage -> CanonicalUsage', () => {
  it('the documented response.done: cached text apart, uncached audio at the audio price, speech as audio output', () => {
    const usage = usageFromRealtime(
      fixtureJson<{ response: { usage: unknown } }>('realtime/response-done.json').response.usage,
    );
    expect(usage).toEqual({
      inputTokens: 132,
      outputTokens: 121,
      cachedTokens: 64,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      audioInputTokens: 13,
      audioOutputTokens: 91,
    });
    // The vendor's own total is the sum of what is charged.
    expect(usage!.inputTokens + usage!.outputTokens).toBe(253);
  });

  it('cached audio is a part of the cached tokens and leaves the uncached audio', () => {
    const usage = usageFromRealtime({
      input_tokens: 1000,
      output_tokens: 50,
      input_token_details: {
        text_tokens: 400,
        audio_tokens: 600,
        cached_tokens: 500,
        cached_tokens_details: { text_tokens: 300, audio_tokens: 200 },
      },
      output_token_details: { text_tokens: 50, audio_tokens: 0 },
    });
    expect(usage).toMatchObject({
      inputTokens: 1000,
      cachedTokens: 500,
      cachedAudioInputTokens: 200,
      audioInputTokens: 400,
      outputTokens: 50,
    });
    expect(usage).not.toHaveProperty('audioOutputTokens');
  });

  it('counts beyond their whole are clamped, never negative', () => {
    const usage = usageFromRealtime({
      input_tokens: 100,
      output_tokens: 10,
      input_token_details: {
        audio_tokens: 500,
        cached_tokens: 300,
        cached_tokens_details: { audio_tokens: 400 },
      },
      output_token_details: { audio_tokens: 99 },
    });
    expect(usage).toMatchObject({
      inputTokens: 100,
      cachedTokens: 100,
      cachedAudioInputTokens: 100,
      outputTokens: 10,
      audioOutputTokens: 10,
    });
    expect(usage).not.toHaveProperty('audioInputTokens');
  });

  it('a text-only response (no details) and a response without usage', () => {
    expect(usageFromRealtime({ input_tokens: 7, output_tokens: 3, total_tokens: 10 })).toEqual({
      inputTokens: 7,
      outputTokens: 3,
      cachedTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    });
    expect(usageFromRealtime(undefined)).toBeNull();
    expect(usageFromRealtime({ output_tokens: 3 })).toBeNull();
  });
});

describe('realtime events the edge reads', () => {
  it('response.done: its id, status and usage', () => {
    expect(realtimeProtocol.serverEvent(DONE)).toEqual({
      kind: 'response_done',
      responseId: 'resp_CCXHw0UJld10EzIUXQCNh',
      status: 'completed',
      usage: expect.objectContaining({ inputTokens: 132, outputTokens: 121 }),
    });
  });

  it('response.created, text and transcript deltas (GA and beta names); the rest is not parsed', () => {
    expect(
      realtimeProtocol.serverEvent(
        '{"type":"response.created","event_id":"event_1","response":{"object":"realtime.response","id":"resp_1","status":"in_progress","output":[]}}',
      ),
    ).toEqual({ kind: 'response_started', responseId: 'resp_1' });
    for (const type of [
      'response.output_text.delta',
      'response.output_audio_transcript.delta',
      'response.text.delta',
      'response.audio_transcript.delta',
    ])
      expect(
        realtimeProtocol.serverEvent(
          JSON.stringify({
            type,
            event_id: 'e',
            response_id: 'r',
            item_id: 'i',
            output_index: 0,
            content_index: 0,
            delta: 'Hi',
          }),
        ),
      ).toEqual({ kind: 'output', text: 'Hi' });
    expect(realtimeProtocol.serverEvent('{"type":"response.output_audio.delta","delta":"AAAA"}')).toEqual({
      kind: 'other',
    });
    // A nested type is not the event's.
    expect(
      realtimeProtocol.serverEvent('{"type":"conversation.item.added","item":{"type":"response.done"}}'),
    ).toEqual({ kind: 'other' });
    expect(realtimeProtocol.serverEvent('not json "response.done"')).toEqual({ kind: 'other' });
  });

  it('client events: a session.update naming a model, response.create, the rest', () => {
    expect(
      realtimeProtocol.clientEvent(
        '{"type":"session.update","event_id":"c1","session":{"type":"realtime","model":"x"}}',
      ),
    ).toEqual({ kind: 'model', model: 'x', eventId: 'c1' });
    expect(
      realtimeProtocol.clientEvent(
        '{"type":"session.update","session":{"type":"realtime","instructions":"hi"}}',
      ),
    ).toEqual({
      kind: 'other',
    });
    expect(realtimeProtocol.clientEvent('{"type":"response.create"}')).toEqual({
      kind: 'response',
      eventId: null,
    });
    expect(realtimeProtocol.clientEvent('{"type":"input_audio_buffer.append","audio":"AAAA"}')).toEqual({
      kind: 'other',
    });
    const renamed = JSON.parse(
      realtimeProtocol.withModel(
        '{"type":"session.update","session":{"type":"realtime","model":"alias"}}',
        'upstream-id',
      ),
    ) as { session: { model: string; type: string } };
    expect(renamed.session).toEqual({ type: 'realtime', model: 'upstream-id' });
  });

  it('error events in OpenAI format, naming the client event', () => {
    const event = JSON.parse(
      realtimeProtocol.errorEvent(
        { type: 'invalid_request_error', code: 'model_not_allowed', message: 'no', param: 'session.model' },
        'c1',
      ),
    ) as Record<string, unknown>;
    expect(event).toEqual({
      type: 'error',
      event_id: expect.stringMatching(/^event_[A-Za-z0-9_-]{21}$/),
      error: {
        type: 'invalid_request_error',
        code: 'model_not_allowed',
        message: 'no',
        param: 'session.model',
        event_id: 'c1',
      },
    });
  });

  it("the key a browser's SDK offers as a subprotocol", () => {
    expect(
      realtimeProtocol.keyOfSubprotocols('realtime, openai-insecure-api-key.sk-abc, openai-beta.realtime-v1'),
    ).toBe('sk-abc');
    expect(realtimeProtocol.keyOfSubprotocols('realtime')).toBeNull();
    expect(realtimeProtocol.keyOfSubprotocols(undefined)).toBeNull();
  });
});

describe('where providers take realtime sessions', () => {
  const settings = (s: object): ProviderSettings => s as ProviderSettings;

  it('OpenAI: /realtime?model=, the key as a bearer token, the beta flag from a header or a subprotocol', () => {
    const route = openAIAdapter.realtime!;
    expect(route.path('gpt-realtime', settings({}))).toBe('/realtime?model=gpt-realtime');
    expect(route.headers('sk-up', {})).toEqual({ authorization: 'Bearer sk-up' });
    expect(route.headers('sk-up', { 'openai-beta': 'realtime=v1' })).toEqual({
      authorization: 'Bearer sk-up',
      'openai-beta': 'realtime=v1',
    });
    expect(
      route.headers(undefined, { 'sec-websocket-protocol': 'realtime, openai-beta.realtime-v1' }),
    ).toEqual({
      'openai-beta': 'realtime=v1',
    });
  });

  it('Azure: the deployments URL with api-version and deployment, or the v1 URL; the key as api-key', () => {
    const deployed = settings({
      api_version: '2025-04-01-preview',
      deployments: { 'gpt-realtime': 'rt-prod' },
    });
    expect(azureRealtimeRoute.path('gpt-realtime', deployed)).toBe(
      '/openai/realtime?api-version=2025-04-01-preview&deployment=rt-prod',
    );
    expect(azureRealtimeRoute.eventModel!('gpt-realtime', deployed)).toBe('rt-prod');
    expect(() => azureRealtimeRoute.path('other', deployed)).toThrow(/no Azure deployment/);
    expect(azureRealtimeRoute.path('gpt-realtime', settings({}))).toBe(
      '/openai/v1/realtime?model=gpt-realtime',
    );
    expect(azureRealtimeRoute.headers('az-key', {})).toEqual({ 'api-key': 'az-key' });
    expect(azureRealtimeRoute.headers(undefined, {})).toEqual({});
  });
});
