/** A span of this many characters of a secret, found anywhere in a text, is hidden. */
export const REDACT_SPAN = 8;
export const REDACTED = '[redacted]';

/**
 * `text` with every run of it that shares a span of REDACT_SPAN or more characters with one of
 * `secrets` replaced by [redacted]. An upstream that echoes a key may echo any part of it, cut
 * anywhere (an answer truncated mid-key still shows most of it), so whole-key matching is not
 * enough: every REDACT_SPAN-character window of the text is looked up among the secrets' windows.
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const windows = new Set<string>();
  for (const secret of secrets)
    if (secret !== undefined)
      for (let i = 0; i + REDACT_SPAN <= secret.length; i++) windows.add(secret.slice(i, i + REDACT_SPAN));
  if (windows.size === 0 || text.length < REDACT_SPAN) return text;
  const hidden = new Uint8Array(text.length);
  for (let i = 0; i + REDACT_SPAN <= text.length; i++)
    if (windows.has(text.slice(i, i + REDACT_SPAN))) hidden.fill(1, i, i + REDACT_SPAN);
  let out = '';
  for (let i = 0; i < text.length;) {
    if (hidden[i] === 0) {
      out += text[i++];
      continue;
    }
    while (i < text.length && hidden[i] === 1) i++;
    out += REDACTED;
  }
  return out;
}
