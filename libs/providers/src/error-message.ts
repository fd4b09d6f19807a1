import { type ProviderAdapter, type ProviderSettings } from './adapter.js';

/**
 * The message of a provider's error body, as its wire format reads errors; null when the body is
 * not JSON (a proxy's page) or names no message. What the edge records of a refused credential and
 * what the probe shows of a failed one both start here.
 */
export function errorBodyMessage(
  adapter: Pick<ProviderAdapter, 'hubFormat'>,
  settings: ProviderSettings,
  body: Buffer,
): string | null {
  try {
    return adapter.hubFormat(settings).errorMessage(JSON.parse(body.toString('utf8')));
  } catch {
    return null;
  }
}
