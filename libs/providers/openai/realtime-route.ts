import { type HeaderMap } from '../src/adapter.js';
import { type RealtimeRoute } from '../src/realtime.js';
import { REALTIME_BETA_SUBPROTOCOL } from './realtime-protocol.js';

/**
 * The beta flag a realtime client asked for, as the header OpenAI reads: its own `OpenAI-Beta`
 * header (a server's SDK), or the subprotocol a browser's SDK offers instead.
 */
export function realtimeBeta(client: HeaderMap): string | undefined {
  const beta = client['openai-beta'];
  if (beta !== undefined) return Array.isArray(beta) ? beta.join(',') : beta;
  const offered = client['sec-websocket-protocol'];
  const protocols = Array.isArray(offered) ? offered.join(',') : (offered ?? '');
  return protocols.split(',').some((p) => p.trim() === REALTIME_BETA_SUBPROTOCOL) ? 'realtime=v1' : undefined;
}

/** OpenAI's realtime sessions: `{base_url}/realtime?model=...`, the key as a bearer token. */
export const openAIRealtimeRoute: RealtimeRoute = {
  path: (upstreamModel) => `/realtime?model=${encodeURIComponent(upstreamModel)}`,
  headers(apiKey, client) {
    const headers: Record<string, string> = {};
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const beta = realtimeBeta(client);
    if (beta !== undefined) headers['openai-beta'] = beta;
    return headers;
  },
};
