import {
  type CanonicalUsage,
  type CountTexts,
  type JsonObject,
  tokenizerFamilyOf,
  tokenizerFor,
} from '#libs/providers';
import { countAllByChars, estimatedUsage, type OutputSampler } from './usage-estimate.js';

/**
 * The usage of a stream cut before the upstream's final count, counted with the tokenizer of the
 * model's family (`tokenizerFamilyOf`: exact for the families whose encodings are published,
 * o200k for the others, whose measured error is in docs/quota.md). The tables load on the
 * first cut stream only; if they cannot load, `ceil(chars / 4)` stands in rather than no charge.
 * Counted in slices between which the event loop runs, the work bounded (`Tokenizer.countAll`):
 * the prompt is whatever the client sent.
 */
export async function cutStreamUsage(
  known: CanonicalUsage | null,
  body: JsonObject,
  sampler: OutputSampler,
  modelNames: readonly string[],
): Promise<CanonicalUsage> {
  let countAll: CountTexts;
  try {
    countAll = (await tokenizerFor(tokenizerFamilyOf(modelNames))).countAll;
  } catch {
    countAll = countAllByChars;
  }
  return estimatedUsage(known, body, sampler, countAll);
}
