import { type JsonObject } from '../src/types.js';
import { isObject } from './wire.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Blocks Anthropic refuses a cache mark on. */
const UNMARKABLE = new Set(['thinking', 'redacted_thinking']);

/**
 * OpenAI-format clients send no cache marks (OpenAI caches prompts by itself); towards Anthropic,
 * which caches only up to a marked block, nothing would be cached and every turn of an agent would
 * pay the full input price. The gateway marks the three prefixes that stay stable from one turn to
 * the next: the tools, the system prompt, and the conversation so far (its last block: the next
 * turn appends to it, and Anthropic finds the earlier prefix within its 20-block look-back). Three
 * of Anthropic's four allowed marks. Returns the body with marks, and where it put them.
 */
export function withCacheBreakpoints(body: JsonObject): { body: JsonObject; placed: string[] } {
  const placed: string[] = [];
  const out: JsonObject = { ...body };
  if (Array.isArray(body.tools) && body.tools.length > 0) {
    out.tools = markLast(body.tools as JsonObject[]);
    placed.push('tools');
  }
  if (typeof body.system === 'string' && body.system !== '') {
    out.system = [{ type: 'text', text: body.system, cache_control: EPHEMERAL }];
    placed.push('system');
  } else if (Array.isArray(body.system) && body.system.length > 0) {
    out.system = markLast(body.system as JsonObject[]);
    placed.push('system');
  }
  const messages = Array.isArray(body.messages) ? (body.messages as JsonObject[]) : [];
  const last = messages.at(-1);
  const marked = last && markMessage(last);
  if (marked) {
    out.messages = [...messages.slice(0, -1), marked];
    placed.push('messages');
  }
  return { body: out, placed };
}

function markLast(list: readonly JsonObject[]): JsonObject[] {
  return list.map((item, i) => (i === list.length - 1 ? { ...item, cache_control: EPHEMERAL } : item));
}

/** The message with its last markable block marked, or null when it has none. */
function markMessage(message: JsonObject): JsonObject | null {
  const content = message.content;
  if (typeof content === 'string')
    return content === ''
      ? null
      : { ...message, content: [{ type: 'text', text: content, cache_control: EPHEMERAL }] };
  if (!Array.isArray(content)) return null;
  const at = content.findLastIndex((b: unknown) => isObject(b) && !UNMARKABLE.has(String(b.type)));
  if (at < 0) return null;
  const blocks = content.map((b: unknown, i) =>
    i === at ? { ...(b as JsonObject), cache_control: EPHEMERAL } : b,
  );
  return { ...message, content: blocks };
}
