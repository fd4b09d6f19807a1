import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { Catalog, type ProviderRuntime } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { CredentialUnavailableError, type ProviderCredentials, type UpstreamAuth } from '#libs/credentials';
import { UpstreamClient, type UpstreamRequest } from './upstream.client.js';

/** Answers every request with what it saw: its path, its auth headers and its body. */
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const seen = {
        path: req.url,
        auth: req.headers.authorization ?? null,
        body: Buffer.concat(parts).toString(),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(seen));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function clientWith(auth: Partial<UpstreamAuth> | null) {
  const config = parseConfig({
    providers: [{ id: 'p', type: 'openai', base_url: baseUrl, models: ['m'] }],
    models: [
      { id: 'm', owned_by: 'x', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { g: ['m'] },
  });
  const catalog = new Catalog(config, {});
  const credentials = { get: () => auth } as unknown as ProviderCredentials;
  const client = new UpstreamClient(catalog, config, credentials);
  const provider = catalog.providers.get('p')!;
  return { client, provider };
}

const request = (provider: ProviderRuntime): UpstreamRequest => ({
  provider,
  path: '/chat/completions',
  headers: { 'content-type': 'application/json' },
  body: '{"q":1}',
  signal: new AbortController().signal,
});

describe('UpstreamClient', () => {
  it('reads a non-stream answer whole, and relays a stream as undici gives it, both under the base path', async () => {
    const { client, provider } = clientWith(null);
    const whole = await client.postBuffered(request(provider));
    expect(whole.statusCode).toBe(200);
    expect(JSON.parse(whole.body.toString())).toEqual({
      path: '/v1/chat/completions',
      auth: null,
      body: '{"q":1}',
    });
    const streamed = await client.post(request(provider));
    expect(JSON.parse(await streamed.body.text())).toEqual({
      path: '/v1/chat/completions',
      auth: null,
      body: '{"q":1}',
    });
    await client.onApplicationShutdown();
  });

  it("adds a credential's headers, given at once or awaited, and rejects when it has none", async () => {
    const sync = clientWith({ headers: () => ({ authorization: 'Bearer cached' }) });
    expect(
      JSON.parse((await sync.client.postBuffered(request(sync.provider))).body.toString()),
    ).toMatchObject({
      auth: 'Bearer cached',
    });
    const signed = clientWith({ headers: () => Promise.resolve({ authorization: 'AWS4 signed' }) });
    expect(
      JSON.parse((await signed.client.postBuffered(request(signed.provider))).body.toString()),
    ).toMatchObject({ auth: 'AWS4 signed' });
    const none = clientWith({
      headers: () => {
        throw new CredentialUnavailableError('expired');
      },
    });
    await expect(none.client.postBuffered(request(none.provider))).rejects.toBeInstanceOf(
      CredentialUnavailableError,
    );
    await expect(none.client.post(request(none.provider))).rejects.toBeInstanceOf(CredentialUnavailableError);
    await Promise.all([sync, signed, none].map(({ client }) => client.onApplicationShutdown()));
  });
});
