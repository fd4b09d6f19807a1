/**
 * Text the gateway records from a client (a field name a translation dropped, a tool's type) goes
 * into a log row, a response header and a metric. A client chooses it, so it is made recordable
 * where it is captured: control characters and lone surrogates escaped (Postgres refuses a NUL in
 * `text`), each item cut to a length, and a list cut to a count with "and N more". Nothing a client
 * sends can then make its log, and so its charge, unwritable.
 */

/** C0 and C1 controls, DEL, and UTF-16 surrogates that are not part of a pair. */
const UNRECORDABLE =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with control characters and lone surrogates written as `\uXXXX`, cut to `maxChars`. */
export function recordableText(text: string, maxChars: number): string {
  const escaped = text.replace(UNRECORDABLE, escapeChar);
  if (escaped.length <= maxChars) return escaped;
  // A cut between the halves of a surrogate pair would leave a lone one.
  let end = maxChars - 1;
  const last = escaped.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${escaped.slice(0, end)}…`;
}

/** The line that stands for the items a list had no room for. */
export const moreItems = (count: number): string => `and ${count} more`;

/**
 * The list as recorded: each item recordable, at most `maxItems` lines, the last one saying how
 * many were left out when there were more.
 */
export function recordableList(items: readonly unknown[], maxItems: number, maxChars: number): string[] {
  const texts = items.map((item) => recordableText(typeof item === 'string' ? item : String(item), maxChars));
  if (texts.length <= maxItems) return texts;
  const kept = texts.slice(0, maxItems - 1);
  kept.push(moreItems(texts.length - kept.length));
  return kept;
}
