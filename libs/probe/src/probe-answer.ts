import { type ProviderConfig } from '#libs/config';
import { recordableText } from '#libs/protocol';
import { descriptorOf, errorBodyMessage, type HeaderMap } from '#libs/providers';

/** Of an error answer's words, what is shown (a vendor's message, not its whole page). */
export const MAX_ERROR_CHARS = 300;

/** The first `limit` bytes of a body; the rest is not read (the stream is destroyed). */
export async function firstBytes(body: AsyncIterable<Buffer>, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit);
}

/**
 * What a provider's error answer says, in its own words, bounded and escaped: its adapter's
 * wording of a refused credential (a cloud's exception and message), else the message its wire
 * format reads from an error body, else the body's first characters (a proxy's page). Null for a
 * success, and for an answer that says nothing but its status.
 */
export function probeErrorText(
  provider: ProviderConfig,
  status: number,
  headers: HeaderMap,
  body: Buffer,
): string | null {
  if (status < 400) return null;
  const adapter = descriptorOf(provider.type).adapter;
  const refusal =
    status === 401 || status === 403 ? (adapter.refusalReason?.(status, headers, body) ?? null) : null;
  const words =
    refusal ?? errorBodyMessage(adapter, provider, body) ?? body.toString('utf8').replace(/\s+/g, ' ').trim();
  return words === '' ? null : recordableText(words, MAX_ERROR_CHARS);
}
