import { type JsonObject } from '#libs/providers';
import { type StreamMarker } from '#libs/queue';
import { type RequestRecord } from '../logs/request-record.js';
import { estimateInputTokens } from './usage-estimate.js';

/** The start marker of a stream about to begin; null for a request nobody could be charged for. */
export function streamMarker(record: RequestRecord, body: JsonObject): StreamMarker | null {
  const { key, model } = record;
  if (key === null || model === null) return null;
  return {
    v: 1,
    requestId: record.requestId,
    startedAt: record.startedAt.toISOString(),
    keyId: key.id,
    userId: key.userId,
    group: key.group,
    endpoint: record.endpoint,
    model,
    requestedModel: record.requestedModel,
    fallbackFrom: record.fallbackFrom,
    providerId: record.providerId,
    upstreamModel: record.upstreamModel,
    inputTokens: estimateInputTokens(body),
  };
}
