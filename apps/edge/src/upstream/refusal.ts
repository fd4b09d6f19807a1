import { recordableText } from '#libs/protocol';
import {
  errorBodyMessage,
  type HeaderMap,
  type ProviderAdapter,
  type ProviderSettings,
} from '#libs/providers';

/**
 * For an error answer that is the provider refusing the gateway's own credentials (a 401/403, or
 * what its adapter knows to be one: a vendor that answers a bad key with a 400): why, in the
 * vendor's words ('' when it gave none), bounded and escaped. Null for any other answer.
 */
export type RefusalReader = (status: number, headers: HeaderMap, body: Buffer) => string | null;

/** Of a refusal's words, what is recorded (the log row's attempt, the router's down reason). */
export const MAX_REFUSAL_CHARS = 200;

/**
 * The refusal reader of one provider: its adapter's own wording when it has one (a cloud's
 * exception and message), else the message of its error body as its format reads errors. The
 * client's key never goes upstream, so every 401/403 is the gateway's credential refused.
 */
export function refusalReader(adapter: ProviderAdapter, settings: ProviderSettings): RefusalReader {
  return (status, headers, body) => {
    if (status !== 401 && status !== 403 && !(adapter.refusesCredentials?.(status, body) ?? false))
      return null;
    const words = adapter.refusalReason?.(status, headers, body) ?? errorBodyMessage(adapter, settings, body);
    return words === null ? '' : recordableText(words, MAX_REFUSAL_CHARS);
  };
}
