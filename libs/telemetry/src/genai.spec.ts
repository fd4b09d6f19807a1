import { describe, expect, it } from '@jest/globals';
import { genAiOperation, genAiProviderName } from './genai.js';

describe('GenAI names', () => {
  it('names a provider by its type, an openai-compatible one by its vendor or else its id', () => {
    expect(genAiProviderName('anthropic', 'claude-eu')).toBe('anthropic');
    expect(genAiProviderName('gemini', 'google-ai')).toBe('gcp.gemini');
    expect(genAiProviderName('openai-compatible', 'vllm-a100')).toBe('vllm-a100');
    expect(genAiProviderName('openai-compatible', 'vllm-a100', 'generic')).toBe('vllm-a100');
    expect(genAiProviderName('openai-compatible', 'fast-llama', 'groq')).toBe('groq');
  });

  it('maps client routes to operations', () => {
    expect(genAiOperation('/v1/embeddings')).toBe('embeddings');
    expect(genAiOperation('/v1/completions')).toBe('text_completion');
    expect(genAiOperation('/v1/messages')).toBe('chat');
    expect(genAiOperation('/v1beta/models/{model}:generateContent')).toBe('generate_content');
  });
});
