import { describe, expect, it } from '@jest/globals';
import { responseFacts } from './response-facts.js';

const buf = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));

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

  it('nothing usable: null, never a throw', () => {
    expect(responseFacts(null)).toBeNull();
    expect(responseFacts(Buffer.from('not json'))).toBeNull();
    expect(responseFacts(Buffer.from('{broken'))).toBeNull();
    expect(responseFacts(buf({ choices: 'x', model: 3 }))).toEqual({ model: null, finishReasons: [] });
  });
});
