import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { type Redis } from 'ioredis';
import { readEnv } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { type StreamMarker } from '#libs/queue';
import { createRedis, redisKeys } from '#libs/redis';
import { requestLogJob } from '../../../../test/support/db.js';
import { dropRedisPrefix, TEST_REDIS_URL, uniqueRedisPrefix } from '../../../../test/support/redis.js';
import { StreamMarkers } from './stream-markers.store.js';

/** A TCP relay to the test Redis whose replies can be held back: commands still get through. */
class ReplyGate {
  private held = false;
  /** Called with each chunk of commands the client sent, as it arrives. */
  onSent: (commands: string) => void = () => undefined;
  private readonly clients = new Set<Socket>();
  private readonly backlog: Buffer[] = [];
  private readonly server: Server = createServer((client) => {
    const target = new URL(TEST_REDIS_URL);
    const upstream = connect(Number(target.port || 6379), target.hostname);
    this.clients.add(client);
    client.pipe(upstream);
    client.on('data', (d: Buffer) => this.onSent(d.toString()));
    upstream.on('data', (d: Buffer) => (this.held ? this.backlog.push(d) : client.write(d)));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    return `redis://127.0.0.1:${port}`;
  }

  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    for (const client of this.clients) for (const d of this.backlog.splice(0)) client.write(d);
  }

  async stop(): Promise<void> {
    for (const client of this.clients) client.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const prefix = uniqueRedisPrefix('markers');
const keys = redisKeys(prefix);
const config = parseConfig({
  providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
  models: [{ id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } }],
  groups: { default: ['m'] },
});
let reader: Redis;

function marker(requestId: string): StreamMarker {
  return {
    v: 1,
    requestId,
    startedAt: new Date().toISOString(),
    keyId: 'k',
    userId: 'u',
    group: 'default',
    endpoint: '/v1/chat/completions',
    model: 'm',
    providerId: 'p',
    upstreamModel: 'm',
    inputTokens: 3,
  };
}

async function eventually(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let n = 0; !(await check()); n++) {
    if (n > 100) throw new Error(`${what}: not within 2 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What happened, in order: the store's warnings and the test's own observations. */
const events: string[] = [];

beforeAll(() => {
  reader = createRedis(TEST_REDIS_URL, { name: 'markers-reader' });
  Logger.overrideLogger({
    log: () => undefined,
    error: () => undefined,
    warn: (message: unknown) => events.push(String(message)),
  });
});
afterAll(async () => {
  reader.disconnect();
  await dropRedisPrefix(prefix);
});

describe('StreamMarkers', () => {
  it('writes a marker to Redis before its stream may send, even while an earlier command awaits its reply', async () => {
    const gate = new ReplyGate();
    const env = readEnv({ REDIS_URL: await gate.start(), REDIS_PREFIX: prefix });
    const markers = new StreamMarkers(env, keys, config);
    const streams = keys.edgeStreams(markers.instance);
    try {
      await markers.open(marker('req_first'));
      await eventually('the connection up', async () => (await reader.hexists(streams, 'req_first')) === 1);

      // A clear goes out and its reply is held: that command is still in flight.
      gate.hold();
      markers.landed([requestLogJob({ requestId: 'req_first', stream: true })]);
      await new Promise((r) => setImmediate(r));
      await eventually('the clear ran', async () => (await reader.hexists(streams, 'req_first')) === 0);

      // The stream may send once `open` resolved: by then its marker has left for Redis, while
      // the clear's reply is still held (it times out after the store's 500 ms command timeout).
      const second = marker('req_second');
      gate.onSent = (commands) => {
        if (commands.includes('req_second')) events.push('marker sent');
      };
      await markers.open(second);
      await eventually('both', async () => events.length === 2);
      expect(events).toEqual(['marker sent', '1 stream markers not cleared: Command timed out']);
      await eventually(
        'the marker in Redis',
        async () => (await reader.hexists(streams, 'req_second')) === 1,
      );
      expect(JSON.parse((await reader.hget(streams, 'req_second'))!)).toEqual(second);
    } finally {
      gate.release();
      await markers.close();
      await gate.stop();
    }
  });
});
