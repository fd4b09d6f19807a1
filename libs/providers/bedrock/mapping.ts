import { GatewayError } from '#libs/protocol';
import { type ChatFinishReason } from '../src/chat.js';
import { finishReasonIn } from '../src/hub-answer.js';
import { isObject } from './wire.js';

/**
 * Converse stop reason -> hub finish reason. A guardrail that intervened and a filtered answer
 * are both content filters; a full context window is cut short (`length`), as Anthropic's own.
 */
export function finishReasonOf(stop: unknown): ChatFinishReason | null {
  return finishReasonIn(stop, FINISH_REASONS, 'Bedrock returned an unknown stopReason');
}

const FINISH_REASONS: Readonly<Record<string, ChatFinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  guardrail_intervened: 'content_filter',
  content_filtered: 'content_filter',
};

/** `{ "message": "..." }` (Bedrock's error body; some exceptions spell it `Message`) -> its message. */
export function bedrockErrorMessage(body: unknown): string | null {
  if (!isObject(body)) return null;
  const message = body.message ?? body.Message;
  return typeof message === 'string' && message !== '' ? message : null;
}

/**
 * A Bedrock error answer the gateway renders in the client's own shape: the request errors
 * (ValidationException 400, ResourceNotFoundException 404, a body too large 413). Bedrock's
 * `{ "message" }` body is no client's format, so even a native client gets it re-rendered.
 * 401/403 (a refused signature or key, AccessDeniedException), 429 (ThrottlingException,
 * ModelNotReadyException) and 5xx are the provider's failures, left to the failover.
 */
export function bedrockClientError(status: number, body: Buffer): GatewayError | null {
  if (status < 400 || status === 401 || status === 403 || status === 429 || status >= 500) return null;
  let parsed: unknown = null;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    // Not JSON (a proxy's page): the status alone says what it was.
  }
  const message = bedrockErrorMessage(parsed) ?? `The provider rejected the request (HTTP ${status}).`;
  if (status === 404) return new GatewayError('not_found', message);
  if (status === 413) return new GatewayError('request_too_large', message);
  return new GatewayError('invalid_request', message);
}

/**
 * An exception frame of an event stream (`:message-type: exception`), named by
 * `:exception-type`, as the Anthropic error type a Messages client reads in an `error` event.
 */
export function anthropicErrorTypeOf(exception: string): string {
  switch (exception) {
    case 'throttlingException':
    case 'serviceQuotaExceededException':
      return 'rate_limit_error';
    case 'serviceUnavailableException':
    case 'modelNotReadyException':
      return 'overloaded_error';
    case 'validationException':
      return 'invalid_request_error';
    case 'modelTimeoutException':
      return 'timeout_error';
    default:
      // internalServerException, modelStreamErrorException and any new one.
      return 'api_error';
  }
}

/**
 * A refused signature, key or permission (401/403) as AWS names it: the exception of
 * `x-amzn-ErrorType` and the body's message (`InvalidSignatureException: The request signature we
 * calculated does not match...`), bounded.
 */
export function bedrockRefusalReason(
  _status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  body: Buffer,
): string | null {
  const raw = headers['x-amzn-errortype'];
  const type = (Array.isArray(raw) ? raw[0] : raw)?.split(':', 1)[0] ?? null;
  let message: string | null = null;
  try {
    message = bedrockErrorMessage(JSON.parse(body.toString('utf8')));
  } catch {
    // Not JSON: the exception's name alone.
  }
  const text = [type, message].filter((t): t is string => t !== null && t !== '').join(': ');
  if (text === '') return null;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
