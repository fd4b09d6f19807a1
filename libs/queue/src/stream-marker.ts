import { z } from 'zod';

/**
 * What an edge records in Redis before the first byte of a stream reaches the client, and clears
 * once the stream's log is in the queue (or spooled). A marker still there when its edge stopped
 * heartbeating is a stream cut by the edge's death: the worker charges it from this alone, so it
 * holds everything the log row and the charge need (docs/quota.md, "Streams cut by an edge crash").
 * The edge instance is the Redis key the marker is stored under.
 */
export const streamMarkerSchema = z.object({
  v: z.literal(1),
  requestId: z.string().min(1).max(100),
  /** The request's own start: the log row's partition key, so the edge's late log collides with it. */
  startedAt: z.iso.datetime(),
  keyId: z.string(),
  userId: z.string(),
  group: z.string(),
  endpoint: z.string(),
  /** The gateway's model id (a fallback's, when one answers): the worker prices the charge with it. */
  model: z.string(),
  /** As the log job's: the client's name for the model, and the model a fallback answered for. */
  requestedModel: z.string().max(300).nullable().optional(),
  fallbackFrom: z.string().nullable().optional(),
  providerId: z.string().nullable(),
  upstreamModel: z.string().nullable(),
  /** The request's input, estimated at `ceil(chars / 4)` when the stream started. */
  inputTokens: z.int().nonnegative(),
});

export type StreamMarker = z.infer<typeof streamMarkerSchema>;

/** The marker of a stored value, or null when it is not one (a bad write must not stop a sweep). */
export function parseStreamMarker(value: string): StreamMarker | null {
  try {
    const parsed = streamMarkerSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
