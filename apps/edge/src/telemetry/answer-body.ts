import { parseObject } from '#libs/providers';

/** An upstream body as an object, or null when it is not a JSON object; never throws. */
export function parseAnswer(buf: Buffer | null): Record<string, unknown> | null {
  if (buf === null || buf.length === 0 || buf[0] !== 0x7b) return null;
  return parseObject(buf.toString('utf8'));
}
