import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 response as read off the wire. */
export interface RawResponse {
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The body as JSON (undefined when it is not JSON). */
  readonly json: unknown;
}

export interface RawExchange {
  readonly responses: readonly RawResponse[];
  /** Whether the server closed the connection (rather than the client, after the last answer). */
  readonly closedByServer: boolean;
}

/**
 * Writes raw bytes on a new connection (what no HTTP client would send: pipelines, malformed
 * framing) and reads responses until `expected` have arrived or the server closes the connection.
 * Like a naive client, it fails if the server stops taking the bytes before all are written
 * (EPIPE, reset). Bodies must be framed by content-length, as every gateway answer is.
 */
export async function rawExchange(
  baseUrl: string,
  bytes: string | Buffer,
  expected = 1,
): Promise<RawExchange> {
  const url = new URL(baseUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined); // a failed write rejects below; a reset then closes
  let received: Buffer = Buffer.alloc(0);
  const responses: RawResponse[] = [];
  const answered = new Promise<boolean>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      for (let next = takeResponse(received); next; next = takeResponse(received)) {
        responses.push(next.response);
        received = next.rest;
      }
      if (responses.length >= expected) resolve(false);
    });
    socket.on('close', () => resolve(true));
  });
  try {
    await write(socket, bytes);
    return { closedByServer: await answered, responses };
  } finally {
    socket.destroy();
  }
}

/** Writes in slices of 1 MiB, each after the previous was taken: a large body never sits in memory twice. */
async function write(socket: Socket, bytes: string | Buffer): Promise<void> {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  const slice = 1024 * 1024;
  for (let at = 0; at < data.length; at += slice) {
    await new Promise<void>((resolve, reject) =>
      socket.write(data.subarray(at, at + slice), (err) => (err ? reject(err) : resolve())),
    );
  }
}

function takeResponse(buf: Buffer): { response: RawResponse; rest: Buffer } | null {
  const headEnd = buf.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const [statusLine, ...lines] = buf.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyStart = headEnd + 4;
  if (buf.length < bodyStart + length) return null;
  const body = buf.subarray(bodyStart, bodyStart + length).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const status = Number(statusLine!.split(' ')[1]);
  return { response: { status, headers, body, json }, rest: buf.subarray(bodyStart + length) };
}
