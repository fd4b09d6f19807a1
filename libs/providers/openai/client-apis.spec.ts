import { describe, expect, it } from '@jest/globals';
import { completionsApi, embeddingsApi, missingField, responsesApi } from './index.js';

describe('openai client APIs', () => {
  it('take the client routes of their upstream paths', () => {
    for (const [api, path] of [
      [completionsApi, '/completions'],
      [embeddingsApi, '/embeddings'],
      [responsesApi, '/responses'],
    ] as const) {
      expect(api.route).toBe(`/v1${path}`);
    }
    expect(embeddingsApi.streams).toBe(false);
  });

  it('name the first missing required field', () => {
    expect(missingField.chat({ model: 'm', messages: 'x' })).toBe('messages');
    expect(missingField.completions({ model: 'm' })).toBe('prompt');
    expect(missingField.completions({ prompt: 'p' })).toBe('model');
    expect(missingField.completions({ model: 'm', prompt: '' })).toBeNull();
    expect(missingField.embeddings({ model: 'm' })).toBe('input');
    expect(missingField.embeddings({ model: 'm', input: ['a'] })).toBeNull();
    expect(missingField.responses({ model: 'm' })).toBe('input');
  });
});
