import { GatewayError } from '#libs/protocol';

/** Google's error body, sometimes in a one-element list (Vertex's front end answers in it). */
interface GoogleErrorBody {
  readonly error?: { readonly code?: unknown; readonly status?: unknown; readonly message?: unknown };
}

/** Long enough for Google's messages (a resource name, a field path), short enough for a log line. */
const MAX_MESSAGE = 500;

/**
 * A request error Vertex's front end answered in Google's shape on a Claude model's route (a
 * model the project cannot use: 404 NOT_FOUND; a malformed request: 400 INVALID_ARGUMENT), which
 * a Messages client passed through natively would not read as Anthropic's, or on an embedding
 * model's `predict` (an OpenAI client's): the gateway renders it in the client's shape. Null for
 * Claude's own (Anthropic-shaped) errors, which pass, and for 401, 403, 429 and 5xx, which are
 * provider failures (fail over).
 */
export function frontEndRequestError(status: number, body: Buffer): GatewayError | null {
  if (status < 400 || status >= 500 || status === 401 || status === 403 || status === 429) return null;
  if (!body.includes('"status"')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const error = (
    (Array.isArray(parsed) && parsed.length === 1 ? parsed[0] : parsed) as GoogleErrorBody | null
  )?.error;
  if (typeof error !== 'object' || error === null || typeof error.status !== 'string') return null;
  const raw = typeof error.message === 'string' && error.message !== '' ? error.message : `HTTP ${status}`;
  const message = `Vertex AI refused the request: ${raw.length > MAX_MESSAGE ? `${raw.slice(0, MAX_MESSAGE - 1)}…` : raw}`;
  if (status === 404) return new GatewayError('not_found', message);
  if (status === 413) return new GatewayError('request_too_large', message);
  return new GatewayError('invalid_request', message);
}
