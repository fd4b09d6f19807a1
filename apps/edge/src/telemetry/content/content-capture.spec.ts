import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { ATTR, CONTENT_MAX_BYTES, createLogger, PinoNestLogger, TRUNCATED_MARK } from '#libs/telemetry';
import { RequestRecord } from '../../logs/request-record.js';
import { newAttempt } from '../../logs/upstream-attempt.js';
import { anthropic, CLIENT_APIS, openai } from '#libs/providers';
import { ContentCapture, contentAttributes } from './content-capture.js';

/** Every JSON line the app's logger writes (the real pino setup, redaction included). */
const lines: Array<Record<string, unknown>> = [];
beforeAll(() => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  Logger.overrideLogger(new PinoNestLogger(createLogger({ app: 'edge', level: 'info', destination: sink })));
});
afterAll(() => Logger.overrideLogger(false));

function request(endpoint: string): RequestRecord {
  const record = new RequestRecord(`req_${Math.random().toString(16).slice(2)}`, endpoint);
  record.targeted('m');
  record.attempted([newAttempt('p0', 'm', 'm', [], 0, false)], false);
  return record;
}

const chunk = (choice: object, extra: object = {}) =>
  JSON.stringify({ object: 'chat.completion.chunk', choices: [choice], ...extra });

describe('ContentCapture', () => {
  it('non-stream: one log line with the request id, prompt and answer; the same values for the span', () => {
    const capture = new ContentCapture();
    const record = request('/v1/messages');
    capture.requestPlanned(record, CLIENT_APIS.messages, {
      model: 'm',
      system: 'Be terse.',
      messages: [{ role: 'user', content: 'Hi there' }],
    });
    capture.answered(
      record,
      anthropic.messagesWire.outputMessages({
        type: 'message',
        content: [{ type: 'text', text: 'Hello.' }],
        stop_reason: 'end_turn',
      }),
    );
    const content = capture.finish(record, record.finish(200, null, 0)!)!;
    expect(JSON.parse(content.system!)).toEqual([{ type: 'text', content: 'Be terse.' }]);
    expect(JSON.parse(content.input)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Hi there' }] },
    ]);
    expect(JSON.parse(content.output!)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Hello.' }], finish_reason: 'end_turn' },
    ]);
    expect(content.answered).toBe(true);
    const line = lines.find((l) => l.request_id === record.requestId);
    expect(line).toMatchObject({
      level: 'info',
      context: 'GenAiContent',
      msg: 'gen_ai content',
      [ATTR.operation]: 'chat',
      [ATTR.endpoint]: '/v1/messages',
      [ATTR.requestModel]: 'm',
      [ATTR.httpStatus]: 200,
      ...contentAttributes(content),
    });
  });

  it('stream: the tapped meter still meters (drops the unasked usage chunk), and the text is kept', () => {
    const capture = new ContentCapture();
    const record = request('/v1/chat/completions');
    capture.requestPlanned(record, CLIENT_APIS.chat, {
      model: 'm',
      messages: [{ role: 'user', content: 'Count' }],
    });
    const meter = capture.tapStream(record, openai.chatWire.meter(false), openai.chatWire);
    expect(meter.see(chunk({ index: 0, delta: { content: 'one ' } }))).toBe(true);
    expect(meter.see(chunk({ index: 0, delta: { content: 'two' }, finish_reason: 'stop' }))).toBe(true);
    expect(
      meter.see(JSON.stringify({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2 } })),
    ).toBe(false);
    expect(meter.see('[DONE]')).toBe(true);
    expect(meter).toMatchObject({
      completed: true,
      usageFinal: true,
      usage: { inputTokens: 3, outputTokens: 2 },
    });
    expect(meter.facts()).toEqual({ model: null, finishReasons: ['stop'] });
    const content = capture.finish(record, record.finish(200, null, 0)!)!;
    expect(JSON.parse(content.output!)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'one two' }], finish_reason: 'stop' },
    ]);
  });

  it('a huge prompt is bounded in the log line and the attribute, and says it was cut', () => {
    const capture = new ContentCapture();
    const record = request('/v1/chat/completions');
    capture.requestPlanned(record, CLIENT_APIS.chat, {
      messages: [{ role: 'user', content: 'y'.repeat(1_000_000) }],
    });
    const content = capture.finish(record, record.finish(502, 'upstream_error', 0)!)!;
    expect(Buffer.byteLength(content.input)).toBeLessThanOrEqual(CONTENT_MAX_BYTES);
    expect(content.input).toContain(TRUNCATED_MARK);
    // Nothing was answered: no output, and no attempt to put it on.
    expect(content).toMatchObject({ output: null, answered: false });
    const line = lines.find((l) => l.request_id === record.requestId)!;
    expect(line[ATTR.inputMessages]).toBe(content.input);
    expect(line).not.toHaveProperty([ATTR.outputMessages]);
  });

  it('a request never planned (rejected before going upstream) has no content and no line', () => {
    const capture = new ContentCapture();
    const record = request('/v1/chat/completions');
    expect(capture.finish(record, record.finish(401, 'invalid_api_key', 0)!)).toBeNull();
    expect(lines.some((l) => l.request_id === record.requestId)).toBe(false);
  });
});
