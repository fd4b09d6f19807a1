import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger, type LoggerService } from '@nestjs/common';
import { parseConfig } from '#libs/gateway-config';
import { type RedisClient, redisKeys } from '#libs/redis';
import { type RouteSample } from '#libs/routing';
import { SampleShipper } from './sample-shipper.service.js';

const lines: string[] = [];
const recorder: LoggerService = {
  log: (m: string) => lines.push(`log ${m}`),
  warn: (m: string) => lines.push(`warn ${m}`),
  error: (m: string) => lines.push(`error ${m}`),
};
beforeAll(() => Logger.overrideLogger(recorder));
afterAll(() => Logger.overrideLogger(false));

const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'] },
});

/** A Redis whose XADD fails while `down` is set. */
function redis(state: { down: boolean }): RedisClient {
  const xadd = () =>
    state.down ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) : Promise.resolve('1-0');
  // Only XADD is called by appendSamples.
  return { xadd } as unknown as RedisClient;
}

const sample = (): RouteSample => ({
  providerId: 'p',
  model: 'm',
  at: Date.now(),
  outcome: 'ok',
  status: 200,
  latencyMs: 12,
  ttftMs: null,
  retryAfterMs: null,
});

describe('SampleShipper', () => {
  it('warns once per run of failed flushes and says when shipping works again, with the count', async () => {
    const state = { down: false };
    const shipper = new SampleShipper(redis(state), redisKeys('t'), config);
    lines.length = 0;
    // Three 3-second outages at one flush per 250 ms: 12 failed flushes each, 36 in all.
    for (let outage = 0; outage < 3; outage++) {
      state.down = true;
      for (let flush = 0; flush < 12; flush++) {
        shipper.push(sample());
        await shipper.flush();
      }
      state.down = false;
      shipper.push(sample());
      await shipper.flush();
    }
    await shipper.beforeApplicationShutdown();
    expect(shipper.dropped).toBe(36);
    expect(shipper.shipped).toBe(3);
    // Was one warning per failed flush: 36 lines.
    expect(lines).toEqual(
      Array.from({ length: 3 }, () => [
        'warn shipping route samples failed (connect ECONNREFUSED 127.0.0.1:6379); logged again once it works',
        expect.stringMatching(/^log shipping route samples works again after 12 failures in \d+ ms$/),
      ]).flat(),
    );
  });
});
