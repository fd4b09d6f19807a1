import { type CanonicalUsage, type UsageParts, usageOf } from './types.js';

/**
 * Readers of vendors' usage objects, for the `usage.ts` of each wire format: each maps its own
 * fields, these say how any of them reads a count.
 */

/** A token count as a vendor sent it: a finite count of zero or more, else 0 (absent or malformed). */
export function tokenCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/**
 * Canonical usage of a usage object whose prompt comes in disjoint parts (Anthropic, Converse),
 * read by `parts`; null when it is no object or counts neither its `input` nor its `output`
 * field (a stream event or a body that reports no usage, which must not count as zero).
 */
export function disjointUsageOf(
  usage: unknown,
  input: string,
  output: string,
  parts: (usage: Readonly<Record<string, unknown>>) => Partial<UsageParts>,
): CanonicalUsage | null {
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return null;
  const fields = usage as Readonly<Record<string, unknown>>;
  if (typeof fields[input] !== 'number' && typeof fields[output] !== 'number') return null;
  return usageOf(parts(fields));
}
