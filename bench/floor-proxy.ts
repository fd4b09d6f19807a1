/**
 * The bench's floor: the least a Node proxy can do between wrk and the mock. Node's HTTP server
 * takes the request, undici forwards it over kept-alive connections, and the answer is relayed as
 * it arrives, chunk by chunk: no key check, quota, routing, translation or log. Pinned and flagged
 * like the edge, what it adds over calling the mock directly is what one more Node process and two
 * more crossings between the CPUs cost on this machine, the part of the edge's added latency no
 * change to the gateway's code can remove.
 *
 * Usage: FLOOR_PORT=<port> FLOOR_UPSTREAM=<mock origin> node dist/bench/floor-proxy.js
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Pool } from 'undici';

/** What is forwarded of the client's request headers: what the mock needs to answer. */
const FORWARDED = ['content-type', 'authorization'] as const;

async function forward(pool: Pool, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const upstream = await pool.request({
    method: req.method as 'POST',
    path: req.url ?? '/',
    headers,
    body: Buffer.concat(chunks),
  });
  const contentType = upstream.headers['content-type'];
  res.writeHead(upstream.statusCode, typeof contentType === 'string' ? { 'content-type': contentType } : {});
  for await (const chunk of upstream.body) res.write(chunk);
  res.end();
}

function main(): void {
  const port = Number(process.env.FLOOR_PORT);
  const origin = process.env.FLOOR_UPSTREAM;
  if (!Number.isInteger(port) || !origin) throw new Error('FLOOR_PORT and FLOOR_UPSTREAM must be set');
  const pool = new Pool(origin, { connections: 256 });
  createServer((req, res) => {
    forward(pool, req, res).catch((err: Error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(err.message);
    });
  }).listen(port, '127.0.0.1');
}

main();
