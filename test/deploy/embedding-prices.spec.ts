import { describe, expect, it } from '@jest/globals';
import { loadConfigFile } from '#libs/gateway-config';
import { costNanos } from '#libs/quota';
import { repoPath } from './repo.js';

/**
 * The clouds' embedding models in config/gateway.yaml charge what their vendors publish, to the
 * nanocredit (1 credit = 1 USD, 1e9 nanocredits): the charge of N input tokens is N times the
 * published price per token. Prices per million input tokens as published on 2026-11-26.
 */
const PUBLISHED_PER_MILLION_TOKENS: Readonly<Record<string, number>> = {
  'gemini-embedding-001': 0.15,
  'amazon.titan-embed-text-v2:0': 0.02,
  'cohere.embed-english-v3': 0.1,
  'cohere.embed-multilingual-v3': 0.1,
};
/**
 * Billed per character ($0.000025 per 1,000, white space not counted, as Vertex reports it in
 * `billableCharacterCount`): the characters carry the fee, the tokens are free.
 */
const PER_CHARACTER = ['text-embedding-005', 'text-multilingual-embedding-002'];
const NANOCREDITS_PER_CHARACTER = 25;

const models = new Map(loadConfigFile(repoPath('config/gateway.yaml')).models.map((m) => [m.id, m]));
const pricingOf = (id: string) => {
  const model = models.get(id);
  if (!model) throw new Error(`config/gateway.yaml has no model ${id}`);
  return model.pricing;
};

describe('embedding model prices in config/gateway.yaml', () => {
  it.each(Object.entries(PUBLISHED_PER_MILLION_TOKENS))(
    '%s: N tokens cost N times the published price per token, exactly',
    (id, perMillion) => {
      const nanosPerToken = (perMillion * 1e9) / 1e6;
      for (const tokens of [1, 7, 1234, 2_000_000]) {
        expect(costNanos({ inputTokens: tokens, outputTokens: 0 }, pricingOf(id))).toBe(
          tokens * nanosPerToken,
        );
      }
    },
  );

  it.each(PER_CHARACTER)('%s: N billed characters cost N times the published price, tokens nothing', (id) => {
    for (const characters of [1, 7, 1234, 2_000_000]) {
      const usage = { inputTokens: 5000, outputTokens: 0, inputCharacters: characters };
      expect(costNanos(usage, pricingOf(id))).toBe(characters * NANOCREDITS_PER_CHARACTER);
    }
    expect(costNanos({ inputTokens: 5000, outputTokens: 0 }, pricingOf(id))).toBe(0);
  });
});
