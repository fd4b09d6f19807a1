import { GatewayError, sseEventName } from '#libs/protocol';
import { type ChatChunk, type ClientContext, type ClientFormat, type ProviderFormat } from '#libs/providers';
import { type UpstreamCall } from '../upstream/upstream-run.js';
import { mapUpstreamFailure, upstreamRequestError } from '../upstream/upstream-failure.js';
import { type BodyReply, headerString } from './native-reply.js';
import { type RelayHooks } from './relay.js';
import { frameText } from './sse-writer.js';

/**
 * A translated non-stream answer: upstream body -> hub completion -> the client's format. Usage
 * is read from the upstream body in its own vendor terms, as on the native path, so a charge
 * never depends on a translator. Upstream request errors come back in the client's shape with
 * the provider's own message.
 */
export function hubBodyReply(
  client: ClientFormat,
  provider: ProviderFormat,
  up: UpstreamCall,
  buf: Buffer,
  ctx: ClientContext,
): BodyReply {
  const status = up.response.statusCode;
  const parsed = parseOrNull(buf);
  if (status >= 400) {
    const own = up.prepared.clientError(status, buf);
    if (own !== null) throw own;
    const mapped = mapUpstreamFailure(status, headerString(up.response.headers['retry-after']));
    throw mapped !== 'passthrough'
      ? mapped
      : upstreamRequestError(status, parsed === null ? null : provider.errorMessage(parsed));
  }
  if (parsed === null)
    throw new GatewayError('upstream_error', 'The provider returned a malformed response.');
  const completion = provider.toHub(parsed);
  const usage = provider.wire.usageOfBody(parsed);
  return { status: 200, body: JSON.stringify(client.fromHub(completion, ctx)), errorCode: null, usage };
}

/** Stream hooks: upstream events -> hub chunks -> the client's events, one upstream read at a time. */
export function hubHooks(client: ClientFormat, provider: ProviderFormat, ctx: ClientContext): RelayHooks {
  const toHub = provider.streamToHub();
  const fromHub = client.streamFromHub(ctx);
  const emit = (chunks: ChatChunk[]): string => {
    let out = '';
    for (const chunk of chunks) for (const frame of fromHub.push(chunk)) out += frameText(frame);
    return out;
  };
  return {
    event: (raw, data) => (data === null ? '' : emit(toHub.push({ event: sseEventName(raw), data }))),
    end() {
      let out = emit(toHub.end());
      for (const frame of fromHub.end()) out += frameText(frame);
      return out;
    },
    fail: (message) => fromHub.fail({ type: 'api_error', message }).map(frameText).join(''),
  };
}

function parseOrNull(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8')) as unknown;
  } catch {
    return null;
  }
}
