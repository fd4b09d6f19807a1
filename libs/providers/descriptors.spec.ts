import { describe, expect, it } from '@jest/globals';
import { type z } from 'zod';
import { type ProviderConfig } from '#libs/config';
import { descriptorOf, PROVIDER_DESCRIPTORS, providerEntrySchemaOfRegistry } from './registry.js';

const entry = (fields: Record<string, unknown>): ProviderConfig =>
  providerEntrySchemaOfRegistry().parse({ id: 'p', models: ['m'], ...fields });

describe('provider descriptors', () => {
  it('one per type, each with its adapter, label and settings described for the console', () => {
    const types = PROVIDER_DESCRIPTORS.map((d) => d.type);
    expect(new Set(types).size).toBe(types.length);
    for (const d of PROVIDER_DESCRIPTORS) {
      expect(d.label).not.toBe('');
      for (const [name, schema] of Object.entries(d.settings))
        expect([name, (schema as z.ZodType).meta()?.title]).toEqual([name, expect.any(String)]);
    }
  });

  it('names a provider for the GenAI conventions: its type, an openai-compatible one by its vendor or else its id', () => {
    const name = (fields: Record<string, unknown>) =>
      descriptorOf(fields.type as string).genAiName(entry(fields));
    const url = { base_url: 'http://127.0.0.1:1' };
    expect(name({ type: 'anthropic', id: 'claude-eu', ...url })).toBe('anthropic');
    expect(name({ type: 'gemini', id: 'google-ai', ...url })).toBe('gcp.gemini');
    expect(name({ type: 'openai-compatible', id: 'vllm-a100', ...url })).toBe('vllm-a100');
    expect(name({ type: 'openai-compatible', id: 'vllm-a100', vendor: 'generic', ...url })).toBe('vllm-a100');
    expect(name({ type: 'openai-compatible', id: 'fast-llama', vendor: 'groq', ...url })).toBe('groq');
  });

  it('fills in a derived base URL and the credential facts its type gives', () => {
    const bedrock = entry({ type: 'bedrock', region: 'eu-west-3' });
    expect(bedrock.base_url).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com');
    expect(bedrock.credential).toEqual({ ambient: 'aws', takesKey: true, urls: [bedrock.base_url] });
    const vertex = entry({ type: 'vertex', project: 'my-project-123', location: 'us' });
    expect(vertex.base_url).toBe('https://aiplatform.us.rep.googleapis.com');
    expect(vertex.credential.takesKey).toBe(false);
    expect(entry({ type: 'openai', base_url: 'https://api.openai.com/v1/' }).credential).toEqual({
      ambient: null,
      takesKey: true,
      urls: ['https://api.openai.com/v1'],
    });
  });

  it('refuses an unknown type, naming the known ones', () => {
    const parsed = providerEntrySchemaOfRegistry().safeParse({ id: 'p', type: 'nope', models: ['m'] });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toBe(
      `must be one of ${PROVIDER_DESCRIPTORS.map((d) => d.type).join(', ')}`,
    );
  });
});
