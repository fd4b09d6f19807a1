import { anthropicError, openAIError, invalidRequest } from './errors.js';
import { geminiBadBearer, geminiInvalidKey, geminiNoKey } from './gemini-errors.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonReply, Vendor } from './types.js';

/** The vendor's own refusal when the request does not carry `key` the way that vendor expects it. */
export function checkApiKey(
  vendor: Vendor,
  headers: IncomingHttpHeaders,
  query: URLSearchParams,
  key: string,
): JsonReply | null {
  if (vendor === 'gemini') return checkGoogleKey(headers, query, key);
  if (vendor === 'anthropic') {
    // Anthropic takes the key as `x-api-key`, and (as its SDK v1 sends it) as `Authorization: Bearer`.
    const given = headers['x-api-key'];
    if (given === key || headers.authorization === `Bearer ${key}`) return null;
    const none = given === undefined && headers.authorization === undefined;
    return anthropicError(
      401,
      'authentication_error',
      none ? 'x-api-key header is required' : 'invalid x-api-key',
    );
  }
  const auth = headers.authorization;
  if (auth === `Bearer ${key}`) return null;
  if (auth === undefined || !auth.startsWith('Bearer ')) {
    return openAIError(
      401,
      "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username and password. You can obtain an API key from https://platform.openai.com/account/api-keys.",
      'invalid_request_error',
    );
  }
  return openAIError(
    401,
    `Incorrect API key provided: ${mask(auth.slice(7))}. You can find your API key at https://platform.openai.com/account/api-keys.`,
    'invalid_request_error',
    { code: 'invalid_api_key' },
  );
}

/**
 * Google takes the key as `x-goog-api-key` or `?key=`: none is a 403 (an unregistered caller), a
 * wrong one a 400 `API_KEY_INVALID`, and a bearer token alone a 401 (it must be OAuth).
 */
function checkGoogleKey(headers: IncomingHttpHeaders, query: URLSearchParams, key: string): JsonReply | null {
  const given = headers['x-goog-api-key'] ?? query.get('key') ?? undefined;
  if (given === key || query.get('key') === key) return null;
  if (given !== undefined) return geminiInvalidKey();
  return headers.authorization === undefined ? geminiNoKey() : geminiBadBearer();
}

/** Anthropic answers 400 without `anthropic-version`; a gateway that drops it must fail in tests. */
export function checkAnthropicVersion(headers: IncomingHttpHeaders): JsonReply | null {
  return headers['anthropic-version']
    ? null
    : invalidRequest('anthropic', 'anthropic-version: header is required');
}

function mask(key: string): string {
  return key.length <= 8
    ? '*'.repeat(key.length)
    : `${key.slice(0, 3)}${'*'.repeat(key.length - 7)}${key.slice(-4)}`;
}
