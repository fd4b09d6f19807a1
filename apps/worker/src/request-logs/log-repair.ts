import { type z } from 'zod';
import { recordableList, recordableText } from '#libs/protocol';

/** The job contract's bounds on `adjustments` (requestLogJobSchema). */
const MAX_ADJUSTMENTS = 64;
const MAX_ADJUSTMENT_CHARS = 300;
/** Text columns have no bound of their own; a repaired one is cut to this. */
const MAX_TEXT_CHARS = 1000;
/** The job contract's bound on `requestedModel`. */
const MAX_REQUESTED_MODEL_CHARS = 300;

const text = (value: unknown): string | null =>
  typeof value === 'string' ? recordableText(value, MAX_TEXT_CHARS) : null;

/**
 * How each descriptive field of a log is made storable when it is not. Only these: the fields that
 * say who pays and for what (request id, start, key, user, status, cost) are never guessed, and a
 * log whose own identity or charge is unreadable still fails as it always did.
 */
const REPAIRS: ReadonlyMap<string, (value: unknown) => unknown> = new Map<
  string,
  (value: unknown) => unknown
>([
  ['adjustments', (v) => (Array.isArray(v) ? recordableList(v, MAX_ADJUSTMENTS, MAX_ADJUSTMENT_CHARS) : [])],
  ['endpoint', (v) => text(v) ?? 'unknown'],
  ['group', text],
  ['model', text],
  ['requestedModel', (v) => (typeof v === 'string' ? recordableText(v, MAX_REQUESTED_MODEL_CHARS) : null)],
  ['fallbackFrom', text],
  ['providerId', text],
  ['upstreamModel', text],
  ['errorCode', text],
  ['latencyMs', () => 0],
  ['ttftMs', () => null],
  ['usage', () => null],
  ['usageEstimated', () => false],
  ['prices', () => null],
  ['attempts', () => []],
  ['traceparent', () => undefined],
]);

export interface RepairedLog {
  readonly data: Record<string, unknown>;
  /** One line per repaired field: the field and what was wrong with it. */
  readonly repairs: readonly string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A log that failed validation, with each field the issues name replaced by a storable value;
 * null when an issue names a field that is not repairable (or the log is not an object). A field
 * the client shaped (a dropped field's name in `adjustments`) must never cost a request its log
 * row and its charge: the worker stores what it can and says what it changed.
 */
export function repairLog(data: unknown, issues: readonly z.core.$ZodIssue[]): RepairedLog | null {
  if (!isRecord(data)) return null;
  const repaired: Record<string, unknown> = { ...data };
  const repairs: string[] = [];
  const done = new Set<string>();
  for (const issue of issues) {
    const field = issue.path[0];
    const repair = typeof field === 'string' ? REPAIRS.get(field) : undefined;
    if (repair === undefined) return null;
    if (done.has(field as string)) continue;
    done.add(field as string);
    repaired[field as string] = repair(data[field as string]);
    const at = issue.path.map(String).join('.');
    repairs.push(recordableText(`${at}: ${issue.message}`, MAX_ADJUSTMENT_CHARS));
  }
  return { data: repaired, repairs };
}
