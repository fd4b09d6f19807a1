import { describe, expect, it } from '@jest/globals';
import { requestLogJobSchema, type StreamMarker } from '#libs/queue';
import { cutStreamLog, EDGE_DIED_MID_STREAM } from './cut-stream-log.js';

const marker: StreamMarker = {
  v: 1,
  requestId: 'req_cut',
  startedAt: '2026-03-01T10:00:00.000Z',
  keyId: 'key_1',
  userId: 'user_1',
  group: 'default',
  endpoint: '/v1/chat/completions',
  model: 'mock-gpt',
  providerId: 'p0',
  upstreamModel: 'gpt-upstream',
  inputTokens: 1_200,
};

describe('cutStreamLog', () => {
  it('charges the estimated input and no output, marked estimated, with the edge-died error', () => {
    const log = cutStreamLog(marker, Date.parse(marker.startedAt) + 2_500, {
      input_per_million: 2,
      output_per_million: 8,
    });
    expect(log).toMatchObject({
      requestId: 'req_cut',
      startedAt: marker.startedAt,
      keyId: 'key_1',
      userId: 'user_1',
      stream: true,
      status: 200,
      errorCode: EDGE_DIED_MID_STREAM,
      latencyMs: 2_500,
      ttftMs: null,
      usage: { inputTokens: 1_200, outputTokens: 0, cachedTokens: 0 },
      usageEstimated: true,
      costNanos: 2_400_000, // 1,200 tokens x 2 credits per million
    });
    // The worker's own payload schema accepts it: it goes through the normal write path.
    expect(requestLogJobSchema.parse(log)).toEqual(log);
  });

  it('writes an unpriced model free, and never a negative latency for a stream begun after the last heartbeat', () => {
    const log = cutStreamLog(marker, Date.parse(marker.startedAt) - 100, undefined);
    expect({ cost: log.costNanos, latency: log.latencyMs }).toEqual({ cost: 0, latency: 0 });
  });
});
