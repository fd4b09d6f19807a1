import { type IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';
import { type ProviderRuntime } from '#libs/config';
import { type ProviderCredentials } from '#libs/credentials';
import { type RealtimeRoute } from '#libs/providers';

/** Where and how a provider's realtime session is opened. */
export interface UpstreamTarget {
  readonly provider: ProviderRuntime;
  readonly route: RealtimeRoute;
  /** The served model's upstream ID. */
  readonly upstreamModel: string;
}

/** An opened upstream session: its socket, and `take` to receive its messages (those already come first). */
export interface OpenedUpstream {
  readonly socket: WebSocket;
  take(listener: (data: WebSocket.RawData, binary: boolean) => void): void;
}

/** Why an upstream session could not be opened: its HTTP answer's status, or none (0) when unreachable. */
export class UpstreamRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The provider's session URL: its base URL (scheme `ws(s):`) and the route's path and query. */
export function upstreamUrl(target: UpstreamTarget): URL {
  const base = target.provider.base_url.replace(/\/+$/, '');
  const url = new URL(base + target.route.path(target.upstreamModel, target.provider));
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url;
}

/**
 * Opens the provider's realtime session with the gateway's credential for it: the adapter's
 * headers with the provider's static key, or, for a provider authenticated otherwise (a cloud's
 * token), its credential's headers for the handshake. Resolves once the upgrade is accepted;
 * rejects with `UpstreamRefused` when it is answered otherwise or cannot be made in time.
 */
export async function openUpstream(
  target: UpstreamTarget,
  client: IncomingHttpHeaders,
  credentials: ProviderCredentials,
  timeoutMs: number,
): Promise<OpenedUpstream> {
  const url = upstreamUrl(target);
  const headers = target.route.headers(target.provider.apiKey, client);
  const credential = credentials.get(target.provider.id);
  if (credential !== null) {
    const httpUrl = new URL(url);
    httpUrl.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
    Object.assign(headers, await credential.headers({ method: 'GET', url: httpUrl.href, headers, body: '' }));
  }
  const socket = new WebSocket(url, { headers, perMessageDeflate: false, handshakeTimeout: timeoutMs });
  // The provider may speak in the same read as its upgrade answer (a session's first event):
  // ws then emits it right after `open`, before the caller's listener, so it is kept until taken.
  const early: Array<[WebSocket.RawData, boolean]> = [];
  const keep = (data: WebSocket.RawData, binary: boolean): void => void early.push([data, binary]);
  socket.on('message', keep);
  const take = (listener: (data: WebSocket.RawData, binary: boolean) => void): void => {
    socket.off('message', keep);
    socket.on('message', listener);
    for (const [data, binary] of early.splice(0)) listener(data, binary);
  };
  return new Promise<OpenedUpstream>((resolve, reject) => {
    const fail = (err: UpstreamRefused): void => {
      socket.removeAllListeners('open');
      socket.on('error', () => undefined);
      socket.terminate();
      reject(err);
    };
    socket.once('open', () => {
      socket.removeAllListeners('unexpected-response');
      socket.removeAllListeners('error');
      resolve({ socket, take });
    });
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      fail(new UpstreamRefused(res.statusCode ?? 0, `HTTP ${res.statusCode ?? 0}`));
    });
    socket.once('error', (err) => fail(new UpstreamRefused(0, err.message)));
  });
}
