import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { type GatewayConfigInput } from '#libs/config';
import { getQuotaBalance } from '#libs/db';
import { eventually, FAST_TEST_SETTINGS, type Gateway, startGateway, testModel } from '../support/gateway.js';

/**
 * Realtime sessions (issue 33, part 2) with the official SDK's `OpenAIRealtimeWS`, which opens
 * only `wss:` URLs: the test terminates TLS in front of the edge as a deployment does (a TLS
 * proxy passing the bytes on to the edge's plain port), and the SDK trusts the proxy's
 * self-signed certificate through its `ws` options. Each `response.done` is one log row and one
 * charge at the model's prices, audio prices included.
 */
const MODEL = 'mock-realtime';
const SECRET = 'rt-secret';
/** Credits per million tokens, as gpt-realtime's: text, cached text, audio, cached audio, output text, output audio. */
const PRICES = {
  input_per_million: 4,
  cache_read_per_million: 0.4,
  input_audio_per_million: 32,
  cache_read_audio_per_million: 0.4,
  output_per_million: 16,
  output_audio_per_million: 64,
};

function config(mockUrl: string): GatewayConfigInput {
  return {
    ...FAST_TEST_SETTINGS,
    providers: [
      {
        id: 'p-realtime',
        type: 'openai',
        base_url: `${mockUrl}/v1`,
        models: [MODEL, { id: SECRET, upstream: 'gpt-realtime' }],
      },
    ],
    models: [{ ...testModel(MODEL), pricing: PRICES }, testModel(SECRET)],
    groups: { default: [MODEL], other: [SECRET] },
  };
}

let gw: Gateway;
let proxy: TlsServer;
let cert: string;
let baseURL: string;
let certDir: string;

/** A self-signed certificate for 127.0.0.1, made for this run. */
function selfSigned(): { key: string; cert: string } {
  certDir = mkdtempSync(join(tmpdir(), 'realtime-tls-'));
  const keyFile = join(certDir, 'key.pem');
  const certFile = join(certDir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
}

beforeAll(async () => {
  gw = await startGateway('e2e-realtime', config);
  const tls = selfSigned();
  cert = tls.cert;
  const edge = new URL(gw.edgeUrl);
  // TLS terminated here, the bytes passed on to the edge: what a load balancer in front of it does.
  proxy = createTlsServer({ key: tls.key, cert: tls.cert }, (client) => {
    const upstream = netConnect(Number(edge.port), edge.hostname);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as { port: number };
  baseURL = `https://127.0.0.1:${address.port}/v1`;
}, 30_000);

afterAll(async () => {
  await new Promise<void>((resolve) => (proxy ? proxy.close(() => resolve()) : resolve()));
  await gw?.close();
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

type Event = { type: string } & Record<string, unknown>;

/** A session through the SDK, with every server event it received. */
class Session {
  readonly events: Event[] = [];
  readonly rt: OpenAIRealtimeWS;
  readonly errors: Error[] = [];
  private waiters: Array<() => void> = [];

  constructor(apiKey: string, model = MODEL) {
    this.rt = new OpenAIRealtimeWS({ model, options: { ca: cert } }, new OpenAI({ apiKey, baseURL }));
    this.rt.on('event', (e) => this.push(e as unknown as Event));
    this.rt.on('error', (err) => {
      this.errors.push(err);
      this.notify();
    });
    this.rt.socket.on('close', () => this.notify());
  }

  private push(e: Event): void {
    this.events.push(e);
    this.notify();
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once `test` holds for what has come (checked at each event, error and close). */
  until(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => (test() ? resolve() : void this.waiters.push(check));
      this.waiters.push(check);
    });
  }

  count(type: string): number {
    return this.events.filter((e) => e.type === type).length;
  }

  /** One user text turn: its item, then a response, until its `response.done`. */
  async turn(text: string, extra: Record<string, unknown>[] = []): Promise<Event> {
    await this.until(() => this.count('session.created') === 1);
    const done = this.count('response.done');
    this.rt.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }, ...extra] as never },
    });
    this.rt.send({ type: 'response.create' });
    await this.until(() => this.count('response.done') > done);
    return this.events.filter((e) => e.type === 'response.done').at(-1)!;
  }

  close(): void {
    this.rt.close();
  }
}

async function rowsOf(keyId: string, n: number) {
  return eventually(async () => {
    const rows = await gw.db.db
      .selectFrom('request_logs')
      .selectAll()
      .where('key_id', '=', keyId)
      .orderBy('started_at')
      .execute();
    return rows.length >= n ? rows : undefined;
  });
}

interface RealtimeUsage {
  input_tokens: number;
  output_tokens: number;
  input_token_details: {
    text_tokens: number;
    audio_tokens: number;
    cached_tokens: number;
    cached_tokens_details: { text_tokens: number; audio_tokens: number };
  };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

/** What a response's usage costs at PRICES, in nanocredits (1 credit = 1e9; prices per million tokens). */
function costOf(u: RealtimeUsage): number {
  const d = u.input_token_details;
  const cachedAudio = d.cached_tokens_details.audio_tokens;
  const cachedText = d.cached_tokens - cachedAudio;
  const audio = d.audio_tokens - cachedAudio;
  const text = u.input_tokens - d.cached_tokens - audio;
  const outAudio = u.output_token_details.audio_tokens;
  const perToken = (price: number): number => price * 1000;
  return (
    text * perToken(PRICES.input_per_million) +
    cachedText * perToken(PRICES.cache_read_per_million) +
    audio * perToken(PRICES.input_audio_per_million) +
    cachedAudio * perToken(PRICES.cache_read_audio_per_million) +
    (u.output_tokens - outAudio) * perToken(PRICES.output_per_million) +
    outAudio * perToken(PRICES.output_audio_per_million)
  );
}

const usageOfDone = (done: Event): RealtimeUsage => (done.response as { usage: RealtimeUsage }).usage;

describe('realtime sessions through the official SDK (wss: through TLS termination)', () => {
  it('a text turn gets its events and usage, and is one log row at the model prices', async () => {
    const key = await gw.createKey({ email: 'rt-turn@example.com' });
    const s = new Session(key.raw);
    const done = await s.turn('Hello there');
    const types = s.events.map((e) => e.type);
    expect(types[0]).toBe('session.created');
    expect(types).toEqual(
      expect.arrayContaining([
        'conversation.item.added',
        'response.created',
        'response.output_item.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.done',
      ]),
    );
    const text = s.events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta as string)
      .join('');
    expect(text).toContain('This is a mock reply to: Hello there');
    const usage = usageOfDone(done);
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    s.close();
    const [row] = await rowsOf(key.id, 1);
    expect(row).toMatchObject({
      endpoint: '/v1/realtime',
      model: MODEL,
      provider_id: 'p-realtime',
      upstream_model: MODEL,
      status: 200,
      error_code: null,
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
    });
    expect(Number(row!.cost_nanos)).toBe(costOf(usage));
    // The upstream got the gateway's handshake, not the client's key.
    const upgrade = gw.mock.requests.filter((r) => r.path === '/v1/realtime' && r.method === 'GET').at(-1)!;
    expect(upgrade.query).toBe(`model=${MODEL}`);
    expect(upgrade.headers.authorization).not.toBe(`Bearer ${key.raw}`);
  });

  it('two turns (the second with audio input and a cached prefix) are two log rows and two charges at the audio prices', async () => {
    const key = await gw.createKey({ email: 'rt-two@example.com' });
    const s = new Session(key.raw);
    const first = usageOfDone(await s.turn('First question'));
    // 0.5 s of 24 kHz 16-bit audio: 5 audio tokens as the mock (and OpenAI) count it.
    const audio = Buffer.alloc(24_000).toString('base64');
    const second = usageOfDone(await s.turn('Second question', [{ type: 'input_audio', audio }]));
    s.close();
    expect(second.input_token_details.audio_tokens).toBe(5);
    expect(second.input_token_details.cached_tokens).toBeGreaterThan(0);
    const rows = await rowsOf(key.id, 2);
    expect(rows).toHaveLength(2);
    // Tied to their session: one request id each, the session's id and the response's number.
    const [a, b] = rows.map((r) => r.request_id);
    expect(a!.replace(/-1$/, '')).toBe(b!.replace(/-2$/, ''));
    expect(rows.map((r) => Number(r.cost_nanos))).toEqual([costOf(first), costOf(second)]);
    expect(rows[1]).toMatchObject({
      audio_input_tokens: 5,
      cached_tokens: second.input_token_details.cached_tokens,
    });
    // The charges: the balance moved by exactly the two costs.
    const grant = BigInt(gw.config.worker.default_grant_credits) * 1_000_000_000n;
    const total = BigInt(costOf(first) + costOf(second));
    await eventually(async () => {
      const balance = await getQuotaBalance(gw.db.db, key.userId);
      return balance && BigInt(balance.balance_nanos) === grant - total ? true : undefined;
    }, 10_000);
  });

  it('a session.update naming a model outside the key group is refused with an error event; the session goes on', async () => {
    const key = await gw.createKey({ email: 'rt-switch@example.com' });
    const s = new Session(key.raw);
    await s.until(() => s.count('session.created') === 1);
    s.rt.send({
      type: 'session.update',
      event_id: 'evt_switch',
      session: { type: 'realtime', model: SECRET },
    });
    await s.until(() => s.count('error') === 1);
    const error = s.events.find((e) => e.type === 'error')!.error as Record<string, unknown>;
    expect(error).toMatchObject({
      code: 'model_not_allowed',
      param: 'session.model',
      event_id: 'evt_switch',
    });
    expect(error.message).toContain(SECRET);
    // Never reached the provider.
    expect(
      gw.mock.requests.some((r) => r.method === 'WS' && JSON.stringify(r.body).includes('gpt-realtime')),
    ).toBe(false);
    await s.turn('Still here?');
    s.close();
  });

  it('a bad key is refused at the handshake, in OpenAI error shape, and no socket opens', async () => {
    const s = new Session('gw-not-a-key');
    await s.until(() => s.errors.length > 0);
    expect(s.errors[0]!.message).toMatch(/401/);
    expect(s.events).toEqual([]);
  });
});
