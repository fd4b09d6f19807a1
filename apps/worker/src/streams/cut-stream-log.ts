import { type RequestLogJob, type StreamMarker } from '#libs/queue';
import { appliedPrices, costOf, type Pricing } from '#libs/quota';

/** The log's error code: the client got a 200 and part of a stream, then the edge serving it died. */
export const EDGE_DIED_MID_STREAM = 'edge_died_mid_stream';

/**
 * The log row and charge of a stream its edge never logged. Input is the marker's estimate; output
 * is charged as zero, the part of the charge that can be bounded from below without knowing what
 * reached the client (docs/quota.md explains the choice). `lastSeenMs`: when the edge was last
 * known alive, which bounds how long the stream can have run (the latency is a lower bound).
 */
export function cutStreamLog(
  marker: StreamMarker,
  lastSeenMs: number,
  pricing: Pricing | undefined,
): RequestLogJob {
  const usage = {
    inputTokens: marker.inputTokens,
    outputTokens: 0,
    cachedTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
  };
  const prices = pricing ? appliedPrices(pricing, usage.inputTokens) : null;
  return {
    v: 1,
    requestId: marker.requestId,
    startedAt: marker.startedAt,
    keyId: marker.keyId,
    userId: marker.userId,
    group: marker.group,
    endpoint: marker.endpoint,
    model: marker.model,
    requestedModel: marker.requestedModel ?? null,
    fallbackFrom: marker.fallbackFrom ?? null,
    providerId: marker.providerId,
    upstreamModel: marker.upstreamModel,
    stream: true,
    status: 200,
    errorCode: EDGE_DIED_MID_STREAM,
    latencyMs: Math.max(0, lastSeenMs - Date.parse(marker.startedAt)),
    ttftMs: null,
    usage,
    usageEstimated: true,
    adjustments: [],
    // A model taken out of the config since has no price: the row is still written, free.
    costNanos: prices ? costOf(usage, prices) : 0,
    prices,
    attempts: [],
  };
}
