import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

/**
 * How deep a request body's JSON may nest. Real clients stay far below it: a tool's or a response
 * format's JSON schema is the deepest thing they send, and OpenAI caps schemas at 10 levels of
 * nesting, about 30 levels of JSON with the `properties`/`items` wrappers. Deeper bodies only
 * cost: every layer that walks a body recursively (re-serialisation for the provider, translation,
 * logging) uses stack per level, and 10,000 levels overflowed it into a 500.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether the JSON text nests objects and arrays deeper than `max`, by one pass over the bytes
 * (no parse, no recursion): brackets inside strings do not count. Valid or not, it only measures;
 * UTF-8 multi-byte sequences never contain these ASCII bytes.
 */
export function nestsDeeperThan(json: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

export type JsonBodyFault = 'empty' | 'invalid' | 'too_deep';

export type JsonBody =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly fault: JsonBodyFault };

/** A request body as JSON, or why it is not acceptable; the depth is checked before parsing. */
export function parseJsonBody(body: Buffer, maxDepth = MAX_JSON_DEPTH): JsonBody {
  if (body.length === 0) return { ok: false, fault: 'empty' };
  if (nestsDeeperThan(body, maxDepth)) return { ok: false, fault: 'too_deep' };
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false, fault: 'invalid' };
  }
}
