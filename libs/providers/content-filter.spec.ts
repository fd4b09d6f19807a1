import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { SseEventSplitter, sseData, sseEventName } from '#libs/protocol';
import { messagesClient } from './anthropic/index.js';
import { azureOpenAIAdapter } from './azure-openai/index.js';
import { geminiClient } from './gemini/index.js';
import { responsesClient } from './openai/index.js';
import { type ChatChunk } from './src/chat.js';
import { type ClientContext, type ClientFormat, type SseFrame } from './src/translation.js';

/**
 * A completion Azure's content filter cut (`finish_reason: "content_filter"`, the category's
 * verdict on the choice), read through the azure-openai adapter's hub format and written in each
 * translated client format as that vendor says "stopped by a safety filter": Anthropic's
 * `stop_reason: "refusal"`, Gemini's `finishReason: "SAFETY"`, and a Responses `incomplete`
 * with `incomplete_details.reason: "content_filter"`. The text that passed is kept.
 */
const fixture = (name: string): string =>
  readFileSync(new URL(`./azure-openai/fixtures/${name}`, import.meta.url), 'utf8');
const hub = azureOpenAIAdapter.hubFormat({} as never);
const PASSED = 'The battle began at dawn and';

const ctx: ClientContext = {
  requestId: 'req_filtered',
  model: 'az',
  created: 1_764_151_200,
  includeUsage: true,
  request: { model: 'az', input: 'Tell the story' },
};

/** Azure's stream as hub chunks, as the edge hands them over. */
function hubChunks(): ChatChunk[] {
  const transform = hub.streamToHub();
  const raw = new SseEventSplitter().push(new TextEncoder().encode(fixture('filtered-completion.sse')));
  const chunks = raw.flatMap((e) => transform.push({ event: sseEventName(e), data: sseData(e)! }));
  return [...chunks, ...transform.end()];
}

/** The client's stream for those chunks, each event's data parsed (`[DONE]` left out). */
function clientEvents(client: ClientFormat): { event?: string; data: Record<string, unknown> }[] {
  const stream = client.streamFromHub(ctx);
  const frames: SseFrame[] = [...hubChunks().flatMap((c) => stream.push(c)), ...stream.end()];
  return frames
    .filter((f) => f.data !== '[DONE]')
    .map((f) => ({ event: f.event, data: JSON.parse(f.data) as Record<string, unknown> }));
}

describe("Azure's filtered completion, non-stream", () => {
  const completion = hub.toHub(JSON.parse(fixture('filtered-completion.json')));

  it('reaches the hub as content_filter with the text that passed', () => {
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'content_filter',
      message: { role: 'assistant', content: PASSED },
    });
  });

  it('is stop_reason refusal for Messages clients', () => {
    expect(messagesClient.fromHub(completion, ctx)).toMatchObject({
      stop_reason: 'refusal',
      content: [{ type: 'text', text: PASSED }],
    });
  });

  it('is finishReason SAFETY for Gemini clients', () => {
    expect(geminiClient.fromHub(completion, ctx)).toMatchObject({
      candidates: [{ finishReason: 'SAFETY', content: { role: 'model', parts: [{ text: PASSED }] } }],
    });
  });

  it('is an incomplete response with reason content_filter for Responses clients', () => {
    const response = responsesClient.fromHub(completion, ctx);
    expect(response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'content_filter' },
    });
    expect(JSON.stringify(response.output)).toContain(PASSED);
  });
});

describe("Azure's filtered completion, streamed", () => {
  it('ends the hub stream with content_filter after the text that passed, usage last', () => {
    const chunks = hubChunks();
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe(PASSED);
    expect(chunks.flatMap((c) => c.choices.map((x) => x.finish_reason)).filter(Boolean)).toEqual([
      'content_filter',
    ]);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 19, completion_tokens: 42 });
  });

  it('is a message_delta with stop_reason refusal for Messages clients', () => {
    const events = clientEvents(messagesClient);
    const delta = events.find((e) => e.event === 'message_delta')!;
    expect(delta.data).toMatchObject({ delta: { stop_reason: 'refusal' }, usage: { output_tokens: 42 } });
    expect(events.at(-1)!.event).toBe('message_stop');
  });

  it('is a last chunk with finishReason SAFETY for Gemini clients', () => {
    const events = clientEvents(geminiClient);
    const finishes = events.flatMap((e) =>
      ((e.data.candidates ?? []) as { finishReason?: string }[]).map((c) => c.finishReason),
    );
    expect(finishes.filter(Boolean)).toEqual(['SAFETY']);
    expect(events.at(-1)!.data).toMatchObject({ candidates: [{ finishReason: 'SAFETY' }] });
  });

  it('is response.incomplete with reason content_filter for Responses clients', () => {
    const events = clientEvents(responsesClient);
    const last = events.at(-1)!;
    expect(last.event).toBe('response.incomplete');
    expect(last.data).toMatchObject({
      response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
    });
    expect(events.some((e) => e.event === 'response.completed')).toBe(false);
  });
});
