import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { errors, Pool } from 'undici';
import { BrokenBody, dispatchBuffered } from './buffered-dispatch.js';

/** A server whose behaviour each test picks by path. */
const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
let server: Server;
let origin: string;
let seen: { path: string; body: string; headers: IncomingMessage['headers'] }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      seen.push({ path: req.url!, body: Buffer.concat(parts).toString(), headers: req.headers });
      routes.get(req.url!)!(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const pool = (opts: Pool.Options = {}) => new Pool(origin, { connections: 2, ...opts });
const post = (path: string, extra: { headersTimeout?: number; bodyTimeout?: number } = {}) => ({
  method: 'POST' as const,
  path,
  headers: { 'content-type': 'application/json', 'x-key': 'k' },
  body: '{"q":1}',
  ...extra,
});
const never = () => new AbortController().signal;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('dispatchBuffered', () => {
  it('sends the request and resolves with the status, the headers and the whole body in one buffer', async () => {
    seen = [];
    routes.set('/ok', (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-up': 'yes' });
      res.write('{"a":');
      setTimeout(() => res.end('"b"}'), 5);
    });
    const p = pool();
    const res = await dispatchBuffered(p, post('/ok'), never());
    expect(res.statusCode).toBe(201);
    expect(res.headers).toMatchObject({ 'content-type': 'application/json', 'x-up': 'yes' });
    expect(res.body.toString()).toBe('{"a":"b"}');
    expect(res.drained).toBeUndefined();
    expect(seen).toMatchObject([{ path: '/ok', body: '{"q":1}', headers: { 'x-key': 'k' } }]);
    await p.close();
  });

  it('keeps an error answer whole (4xx) and drops a 429 or 5xx one, settling once it drained', async () => {
    routes.set('/bad', (_req, res) => res.writeHead(400).end('{"error":"no"}'));
    routes.set('/busy', (_req, res) => {
      res.writeHead(429, { 'retry-after': '7' });
      res.write('slow');
      setTimeout(() => res.end(' down'), 300);
    });
    const p = pool();
    const bad = await dispatchBuffered(p, post('/bad'), never());
    expect([bad.statusCode, bad.body.toString()]).toEqual([400, '{"error":"no"}']);
    const busy = await dispatchBuffered(p, post('/busy'), never());
    expect([busy.statusCode, busy.headers['retry-after'], busy.body.length]).toEqual([429, '7', 0]);
    // It resolved at the headers; the body is read off afterwards and the connection kept.
    let drained = false;
    void busy.drained!.then(() => (drained = true));
    await sleep(50);
    expect(drained).toBe(false);
    await busy.drained;
    expect(p.stats.connected).toBeGreaterThan(0);
    await p.close();
  });

  it("gives up on a dropped body past 128 KiB, as undici's dump does", async () => {
    routes.set('/huge', (_req, res) => {
      res.writeHead(503);
      res.write(Buffer.alloc(200 * 1024));
      // Never ends: only the limit ends the drain.
    });
    const p = pool();
    const res = await dispatchBuffered(p, post('/huge'), never());
    expect(res.statusCode).toBe(503);
    await expect(res.drained).resolves.toBeUndefined();
    await p.destroy();
  });

  it("rejects with undici's own errors: the headers timing out, the body idling", async () => {
    routes.set('/slow-headers', (_req, res) => setTimeout(() => res.writeHead(200).end('{}'), 2_000));
    routes.set('/slow-body', (_req, res) => {
      res.writeHead(200);
      res.write('{');
      setTimeout(() => res.end('}'), 2_000);
    });
    // undici's parser timers tick every 500 ms or so: a 50 ms timeout fires within a second.
    const p = pool();
    await expect(dispatchBuffered(p, post('/slow-headers', { headersTimeout: 50 }), never())).rejects.toThrow(
      errors.HeadersTimeoutError,
    );
    const err: unknown = await dispatchBuffered(p, post('/slow-body', { bodyTimeout: 50 }), never()).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BrokenBody);
    expect((err as BrokenBody).statusCode).toBe(200);
    expect((err as BrokenBody).cause).toBeInstanceOf(errors.BodyTimeoutError);
    await p.destroy();
  }, 10_000);

  it('rejects a connection that breaks before the headers with SocketError, after them as a broken body', async () => {
    routes.set('/drop', (req) => req.socket.destroy());
    routes.set('/cut', (req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => req.socket.destroy(), 5);
    });
    const p = pool();
    await expect(dispatchBuffered(p, post('/drop'), never())).rejects.toThrow(errors.SocketError);
    const err: unknown = await dispatchBuffered(p, post('/cut'), never()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BrokenBody);
    expect((err as BrokenBody).cause).toBeInstanceOf(errors.SocketError);
    await p.destroy();
  });

  it("fails with the signal's reason: aborted before sending, waiting for the headers, reading the body", async () => {
    routes.set('/hang', () => undefined);
    routes.set('/trickle', (_req, res) => {
      res.writeHead(200);
      res.write('{');
    });
    const p = pool();
    const before = new AbortController();
    before.abort('gone');
    await expect(dispatchBuffered(p, post('/hang'), before.signal)).rejects.toBe('gone');
    const waiting = new AbortController();
    const sent = dispatchBuffered(p, post('/hang'), waiting.signal);
    await sleep(20);
    waiting.abort('deadline');
    await expect(sent).rejects.toBe('deadline');
    const reading = new AbortController();
    const read = dispatchBuffered(p, post('/trickle'), reading.signal);
    await sleep(200);
    reading.abort('client gone');
    const err: unknown = await read.catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 200, cause: 'client gone' });
    await p.destroy();
  });

  it('takes an aborted request out of the queue at once while it waits for a connection', async () => {
    // The only connection is held by the first request until the test answers it: the second,
    // queued behind it, must fail and leave the queue while that answer is still owed.
    let answerFirst!: () => void;
    const firstArrived = new Promise<void>((arrived) =>
      routes.set('/hold', (_req, res) => {
        answerFirst = () => res.writeHead(200).end('{}');
        arrived();
      }),
    );
    const p = pool({ connections: 1 });
    const first = dispatchBuffered(p, post('/hold'), never());
    let firstSettled = false;
    void first.finally(() => (firstSettled = true));
    const queued = new AbortController();
    const second = dispatchBuffered(p, post('/hold'), queued.signal);
    await firstArrived;
    expect(p.stats.queued).toBe(1);
    queued.abort('deadline');
    await expect(second).rejects.toBe('deadline');
    expect(firstSettled).toBe(false);
    expect(p.stats.queued).toBe(0);
    answerFirst();
    expect((await first).statusCode).toBe(200);
    expect(seen.filter((r) => r.path === '/hold')).toHaveLength(1);
    await p.close();
  });

  it("leaves no listener on the request's signal once the answer is read", async () => {
    routes.set('/ok2', (_req, res) => res.writeHead(200).end('{}'));
    const p = pool();
    const abort = new AbortController();
    let calls = 0;
    const { signal } = abort;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      calls++;
      add(...args);
    };
    signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
      calls--;
      remove(...args);
    };
    await dispatchBuffered(p, post('/ok2'), signal);
    expect(calls).toBe(0);
    await p.close();
  });
});
