import { describe, expect, it } from '@jest/globals';
import { messagesWire } from './anthropic/index.js';
import { chatWire, responsesWire } from './openai/index.js';

/** Each answer read by the wire format of its shape, as the edge reads it by the upstream's format. */
function responseFacts(body: Record<string, unknown>) {
  if (body.object === 'response') return responsesWire.facts(body);
  return body.type === 'message' ? messagesWire.facts(body) : chatWire.facts(body);
}
const buf = (v: Record<string, unknown>) => v;

describe('responseFacts', () => {
  it('OpenAI chat: model and every choice finish reason', () => {
    expect(
      responseFacts(
        buf({ model: 'gpt-x-2025', choices: [{ finish_reason: 'stop' }, { finish_reason: 'length' }] }),
      ),
    ).toEqual({ model: 'gpt-x-2025', finishReasons: ['stop', 'length'] });
  });

  it('Anthropic messages: stop_reason', () => {
    expect(responseFacts(buf({ type: 'message', model: 'claude', stop_reason: 'end_turn' }))).toEqual({
      model: 'claude',
      finishReasons: ['end_turn'],
    });
  });

  it('OpenAI responses: the incomplete reason, else the status', () => {
    expect(
      responseFacts(buf({ object: 'response', model: 'm', status: 'completed' }))?.finishReasons,
    ).toEqual(['completed']);
    expect(
      responseFacts(
        buf({
          object: 'response',
          model: 'm',
          status: 'incomplete',
          incomplete_details: { reason: 'max_output_tokens' },
        }),
      )?.finishReasons,
    ).toEqual(['max_output_tokens']);
  });

  it('embeddings: the model, no reasons', () => {
    expect(responseFacts(buf({ object: 'list', model: 'emb', data: [] }))).toEqual({
      model: 'emb',
      finishReasons: [],
    });
  });

  it('nothing usable: no facts, never a throw', () => {
    expect(responseFacts(buf({ choices: 'x', model: 3 }))).toEqual({ model: null, finishReasons: [] });
    expect(messagesWire.facts({ stop_reason: 7 })).toEqual({ model: null, finishReasons: [] });
  });
});
