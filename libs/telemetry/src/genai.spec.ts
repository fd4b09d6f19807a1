import { describe, expect, it } from '@jest/globals';
import { genAiOperation } from './genai.js';

describe('GenAI names', () => {
  it('maps client routes to operations', () => {
    expect(genAiOperation('/v1/embeddings')).toBe('embeddings');
    expect(genAiOperation('/v1/completions')).toBe('text_completion');
    expect(genAiOperation('/v1/messages')).toBe('chat');
    expect(genAiOperation('/v1beta/models/{model}:generateContent')).toBe('generate_content');
  });
});
