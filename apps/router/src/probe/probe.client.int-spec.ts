import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Catalog } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { ProbeClient } from './probe.client.js';

let hanging: Server;
let port = 0;

function catalogFor(baseUrl: string): Catalog {
  const config = parseConfig({
    router: { probe_timeout_ms: 150 },
    providers: [{ id: 'p', type: 'openai-compatible', base_url: baseUrl, models: ['m'] }],
    models: [
      { id: 'm', owned_by: 't', created: 0, pricing: { input_per_million: 0, output_per_million: 0 } },
    ],
    groups: {},
  });
  return new Catalog(config, {});
}

beforeAll(async () => {
  // Accepts the connection and never answers.
  hanging = createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  port = (hanging.address() as AddressInfo).port;
});

afterAll(async () => {
  hanging.closeAllConnections();
  await new Promise((resolve) => hanging.close(resolve));
});

describe('ProbeClient', () => {
  it('gives up after probe_timeout_ms on an upstream that never answers', async () => {
    const catalog = catalogFor(`http://127.0.0.1:${port}/v1`);
    const client = new ProbeClient(catalog.config, { get: () => null });
    const started = Date.now();
    const outcome = await client.probe(catalog.providers.get('p')!);
    expect(outcome).toEqual({ ok: false, reason: 'probe: timeout after 150ms', latencyMs: null });
    expect(Date.now() - started).toBeLessThan(1000);
    await client.onApplicationShutdown();
  });
});
