import {
  type CanonicalUsage,
  type CountText,
  type JsonObject,
  textCounterFor,
  tokenizerFamilyOf,
} from '#libs/providers';
import { countByChars, estimatedUsage, type OutputSampler } from './usage-estimate.js';

/**
 * The usage of a stream cut before the upstream's final count, counted with the tokenizer of the
 * model's family (`tokenizerFamilyOf`: exact for the families whose encodings are published,
 * o200k for the others, whose measured error is in docs/quota.md). The tables load on the
 * first cut stream only; if they cannot load, `ceil(chars / 4)` stands in rather than no charge.
 */
export async function cutStreamUsage(
  known: CanonicalUsage | null,
  body: JsonObject,
  sampler: OutputSampler,
  modelNames: readonly string[],
): Promise<CanonicalUsage> {
  let count: CountText;
  try {
    count = await textCounterFor(tokenizerFamilyOf(modelNames));
  } catch {
    count = countByChars;
  }
  return estimatedUsage(known, body, sampler, count);
}
