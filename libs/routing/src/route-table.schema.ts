import { z } from 'zod';
import { type RouteTable } from './route-table.js';

const candidateSchema = z.object({
  providerId: z.string().min(1),
  upstreamModel: z.string().min(1),
  priority: z.number(),
  weight: z.number().positive(),
  state: z.enum(['up', 'half_open', 'down', 'disabled']),
  reason: z.string(),
  latencyMs: z.number().nullable().optional(),
  ttftMs: z.number().nullable().optional(),
  errorRate: z.number().optional(),
});

// Not strict: a newer router may add fields, and an edge still on the old code must keep routing.
const routeTableSchema = z.object({
  version: z.number().int().nonnegative(),
  generatedAt: z.string(),
  models: z.record(z.string(), z.array(candidateSchema)),
});

/** Parses a table read from Redis; an error saying why when it is not JSON or not a RouteTable. */
export function parseRouteTable(text: string): { table: RouteTable } | { error: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  const result = routeTableSchema.safeParse(doc);
  if (!result.success) {
    const issue = result.error.issues[0];
    return {
      error: `not a route table: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
    };
  }
  return { table: result.data };
}
