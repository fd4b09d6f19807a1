import { z } from 'zod';
import { ApiError } from './api-error.js';

/**
 * Parses a body, query or path value at the controller edge. The first issue becomes a 400
 * naming the field; the input itself is never echoed back.
 */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : where;
  throw new ApiError(
    'invalid_request',
    `Invalid ${where === field ? where : `${where} field "${field}"`}: ${issue.message}.`,
  );
}

/**
 * Text that may reach Postgres: no NUL characters (Postgres text cannot hold them and would fail
 * the query with a 500) and a length cap.
 */
export function text(max: number): z.ZodString {
  return z
    .string()
    .max(max)
    .regex(/^[^\0]*$/, 'must not contain NUL characters');
}
