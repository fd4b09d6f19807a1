import { once } from 'node:events';
import { type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { until } from '../../../test/support/wait.js';
import { DRAIN_OPTIONS, GracefulDrain } from './graceful-drain.js';

/** Held until the test releases it, so a request is surely in flight when the stop begins. */
let held: Promise<void> = Promise.resolve();

@Controller()
class PingController {
  @Get('ping')
  async ping(): Promise<{ ok: true }> {
    await held;
    return { ok: true };
  }
}

@Module({
  controllers: [PingController],
  providers: [{ provide: DRAIN_OPTIONS, useValue: { delayMs: 0, timeoutMs: 10_000 } }, GracefulDrain],
})
class DrainedModule {}

let sockets: Socket[] = [];

afterEach(() => {
  for (const s of sockets) s.destroy();
  sockets = [];
});

async function startApp(): Promise<{ app: NestFastifyApplication; server: Server; port: number }> {
  const app = await NestFactory.create<NestFastifyApplication>(DrainedModule, new FastifyAdapter(), {
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  const server = app.getHttpServer() as Server;
  return { app, server, port: (server.address() as { port: number }).port };
}

/** A TCP connection the server has accepted, on which the client sends nothing (yet). */
async function silentConnection(server: Server, port: number): Promise<Socket> {
  const accepted = once(server, 'connection');
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  await Promise.all([once(socket, 'connect'), accepted]);
  return socket;
}

describe('GracefulDrain', () => {
  it('closes connections that never sent a request, so the app stops without waiting for the client to hang up', async () => {
    // Such connections are common: undici opens a spare one when a socket closes under an aborted
    // request, load balancers open them ahead of traffic. Node counts them as active, not idle.
    const { app, server, port } = await startApp();
    const silent = await silentConnection(server, port);
    const closedByServer = once(silent, 'close');
    await app.close(); // would wait for the client to hang up (never, here) had the drain left it open
    await closedByServer;
    expect(silent.bytesRead).toBe(0);
  });

  it('still lets a request in flight finish, then closes its connection too', async () => {
    const { app, server, port } = await startApp();
    const drain = app.get(GracefulDrain);
    let release = (): void => undefined;
    held = new Promise((resolve) => (release = resolve));
    const busy = await silentConnection(server, port);
    const silent = await silentConnection(server, port);
    let reply = '';
    busy.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    const busyClosed = once(busy, 'close');
    const silentClosed = once(silent, 'close');
    const requested = once(server, 'request');
    busy.write('GET /ping HTTP/1.1\r\nhost: x\r\n\r\n');
    await requested;

    const closed = app.close();
    await until(() => drain.draining, 2_000, 'the drain to begin');
    expect(drain.inFlight).toBe(1);
    release();
    await closed;
    await Promise.all([busyClosed, silentClosed]);
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(reply).toMatch(/\{"ok":true\}$/);
    expect(drain.cut).toBe(0);
  });

  it('forgets a request queued behind another on a connection the client closed', async () => {
    // The second response waits for the first to finish before it gets the socket; when the
    // connection goes first, that response never emits 'close'. Tracked by response alone, it
    // stayed in flight forever, and every stop then waited the full drain timeout.
    const { app, server, port } = await startApp();
    const drain = app.get(GracefulDrain);
    let release = (): void => undefined;
    held = new Promise((resolve) => (release = resolve));
    const client = await silentConnection(server, port);
    let requests = 0;
    const bothIn = new Promise<void>((resolve) =>
      server.on('request', () => {
        if (++requests === 2) resolve();
      }),
    );
    client.write('GET /ping HTTP/1.1\r\nhost: x\r\n\r\nGET /ping HTTP/1.1\r\nhost: x\r\n\r\n');
    await bothIn;
    expect(drain.inFlight).toBe(2);
    client.destroy();
    try {
      await until(() => drain.inFlight === 0, 2_000, 'both requests to leave the tracker');
    } finally {
      release();
      await app.close(); // had one stayed, this would wait the whole 10 s drain timeout
    }
    expect(drain.cut).toBe(0);
  }, 20_000);
});
