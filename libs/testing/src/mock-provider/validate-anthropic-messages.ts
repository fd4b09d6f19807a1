/**
 * Anthropic's checks of `messages`: roles, content blocks (known types, required fields and their
 * types, no extra fields) and the tool_use / tool_result pairing between turns. Consecutive turns
 * of one role are combined first, as the API does, so the pairing is checked on whole turns.
 */
import { anthropicInvalid, isObject, type Check } from './params.js';

const MESSAGE_FIELDS = new Set(['role', 'content']);
/** Every block type the Messages API takes in `content` (the pydantic tags it lists). */
const BLOCK_TYPES = [
  'text',
  'image',
  'document',
  'search_result',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
];
const KNOWN = new Set(BLOCK_TYPES);
/** Fields per block type, for the types whose shape the gateway builds. */
const FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  text: new Set(['type', 'text', 'cache_control', 'citations']),
  image: new Set(['type', 'source', 'cache_control']),
  tool_use: new Set(['type', 'id', 'name', 'input', 'cache_control', 'caller']),
  tool_result: new Set(['type', 'tool_use_id', 'content', 'is_error', 'cache_control']),
  thinking: new Set(['type', 'thinking', 'signature']),
  redacted_thinking: new Set(['type', 'data']),
};
const TOOL_RESULT_CONTENT = new Set(['text', 'image', 'document', 'search_result', 'tool_reference']);
const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

interface Placed {
  readonly block: Record<string, unknown>;
  /** Index of the message the block came from. */
  readonly message: number;
  readonly index: number;
}

interface Turn {
  readonly role: 'user' | 'assistant';
  readonly blocks: Placed[];
}

export function validateConversation(list: unknown): Check {
  if (list === undefined) return anthropicInvalid('messages: Field required');
  if (!Array.isArray(list)) return anthropicInvalid('messages: Input should be a valid list');
  if (list.length === 0) return anthropicInvalid('messages: at least one message is required');
  const turns: Turn[] = [];
  for (let i = 0; i < list.length; i++) {
    const invalid = message(list[i], i, i === list.length - 1);
    if (invalid) return invalid;
    const m = list[i] as Record<string, unknown>;
    const role = m.role as Turn['role'];
    const blocks: Placed[] =
      typeof m.content === 'string'
        ? [{ block: { type: 'text', text: m.content }, message: i, index: 0 }]
        : (m.content as Record<string, unknown>[]).map((block, index) => ({ block, message: i, index }));
    const last = turns[turns.length - 1];
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks });
  }
  return pairing(turns);
}

function message(m: unknown, i: number, isLast: boolean): Check {
  if (!isObject(m)) return anthropicInvalid(`messages.${i}: Input should be a valid dictionary`);
  if (m.role === 'system') {
    return anthropicInvalid(
      'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
    );
  }
  if (m.role !== 'user' && m.role !== 'assistant') {
    return anthropicInvalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
  }
  for (const key in m) {
    if (!MESSAGE_FIELDS.has(key))
      return anthropicInvalid(`messages.${i}.${key}: Extra inputs are not permitted`);
  }
  if (m.content === undefined) return anthropicInvalid(`messages.${i}.content: Field required`);
  if (typeof m.content !== 'string' && !Array.isArray(m.content)) {
    return anthropicInvalid(`messages.${i}.content: Input should be a valid list`);
  }
  const empty = m.content === '' || (Array.isArray(m.content) && m.content.length === 0);
  if (empty && !(m.role === 'assistant' && isLast)) {
    return anthropicInvalid(
      `messages.${i}: all messages must have non-empty content except for the optional final assistant message`,
    );
  }
  if (typeof m.content === 'string') return null;
  for (let j = 0; j < m.content.length; j++) {
    const invalid = block(m.content[j], `messages.${i}.content.${j}`);
    if (invalid) return invalid;
  }
  return null;
}

function block(b: unknown, at: string): Check {
  if (!isObject(b)) return anthropicInvalid(`${at}: Input should be a valid dictionary`);
  const type = b.type;
  if (typeof type !== 'string' || !KNOWN.has(type)) {
    return anthropicInvalid(
      `${at}: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: ${BLOCK_TYPES.map((t) => `'${t}'`).join(', ')}`,
    );
  }
  const fields = FIELDS[type];
  if (fields) {
    for (const key in b) {
      if (!fields.has(key)) return anthropicInvalid(`${at}.${type}.${key}: Extra inputs are not permitted`);
    }
  }
  const field = (name: string, problem: string): Check =>
    anthropicInvalid(`${at}.${type}.${name}: ${problem}`);
  switch (type) {
    case 'text':
      if (typeof b.text !== 'string') return field('text', 'Input should be a valid string');
      return b.text === '' ? anthropicInvalid('messages: text content blocks must be non-empty') : null;
    case 'image':
      return imageSource(b.source, `${at}.image.source`);
    case 'tool_use':
      if (typeof b.id !== 'string') return field('id', 'Input should be a valid string');
      if (typeof b.name !== 'string') return field('name', 'Input should be a valid string');
      if (b.name === '') return field('name', 'String should have at least 1 character');
      return isObject(b.input) ? null : field('input', 'Input should be a valid dictionary');
    case 'tool_result':
      return toolResult(b, at);
    case 'thinking':
      if (typeof b.thinking !== 'string') return field('thinking', 'Input should be a valid string');
      return typeof b.signature === 'string' ? null : field('signature', 'Field required');
    case 'redacted_thinking':
      return typeof b.data === 'string' ? null : field('data', 'Field required');
    default:
      return null;
  }
}

function imageSource(source: unknown, at: string): Check {
  if (!isObject(source) || (source.type !== 'base64' && source.type !== 'url' && source.type !== 'file')) {
    return anthropicInvalid(
      `${at}: Input tag does not match any of the expected tags: 'base64', 'url', 'file'`,
    );
  }
  if (source.type === 'url') {
    return typeof source.url === 'string' ? null : anthropicInvalid(`${at}.url.url: Field required`);
  }
  if (source.type === 'file') {
    return typeof source.file_id === 'string' ? null : anthropicInvalid(`${at}.file.file_id: Field required`);
  }
  if (typeof source.media_type !== 'string' || !IMAGE_MEDIA_TYPES.has(source.media_type)) {
    return anthropicInvalid(
      `${at}.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'`,
    );
  }
  return typeof source.data === 'string' ? null : anthropicInvalid(`${at}.base64.data: Field required`);
}

function toolResult(b: Record<string, unknown>, at: string): Check {
  if (typeof b.tool_use_id !== 'string') {
    return anthropicInvalid(`${at}.tool_result.tool_use_id: Input should be a valid string`);
  }
  if (b.is_error !== undefined && typeof b.is_error !== 'boolean') {
    return anthropicInvalid(`${at}.tool_result.is_error: Input should be a valid boolean`);
  }
  const content = b.content;
  if (content === undefined || typeof content === 'string') return null;
  if (!Array.isArray(content))
    return anthropicInvalid(`${at}.tool_result.content: Input should be a valid list`);
  for (let k = 0; k < content.length; k++) {
    const inner = content[k];
    const innerAt = `${at}.tool_result.content.${k}`;
    if (!isObject(inner) || typeof inner.type !== 'string' || !TOOL_RESULT_CONTENT.has(inner.type)) {
      return anthropicInvalid(
        `${innerAt}: Input tag '${String(isObject(inner) ? inner.type : inner)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document', 'tool_reference'`,
      );
    }
    const invalid = inner.type === 'text' || inner.type === 'image' ? block(inner, innerAt) : null;
    if (invalid) return invalid;
  }
  return null;
}

/**
 * Each assistant turn's tool_use ids must all be answered by tool_result blocks at the start of
 * the next (user) turn; a tool_result may only answer a tool_use of the turn right before it.
 * Tool results placed after text count as missing: Anthropic answers that with the same
 * "without `tool_result` blocks immediately after" 400 ("the tool_result blocks must come FIRST").
 */
function pairing(turns: readonly Turn[]): Check {
  let open: Placed[] = [];
  for (const turn of turns) {
    const results = turn.blocks.filter((p) => p.block.type === 'tool_result');
    if (turn.role === 'user') {
      const openIds = new Set(open.map((p) => String(p.block.id)));
      const stray = results.find((p) => !openIds.has(String(p.block.tool_use_id)));
      if (stray) {
        return anthropicInvalid(
          `messages.${stray.message}.content.${stray.index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(stray.block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      const leading = new Set<string>();
      for (const p of turn.blocks) {
        if (p.block.type !== 'tool_result') break;
        leading.add(String(p.block.tool_use_id));
      }
      const missing = open.filter((p) => !leading.has(String(p.block.id)));
      if (missing.length > 0) return unanswered(missing);
      open = [];
    } else {
      if (results.length > 0) {
        const first = results[0] as Placed;
        return anthropicInvalid(
          `messages.${first.message}.content.${first.index}: \`tool_result\` blocks can only be in \`user\` messages`,
        );
      }
      open = turn.blocks.filter((p) => p.block.type === 'tool_use');
    }
  }
  return null;
}

function unanswered(missing: readonly Placed[]): Check {
  const at = (missing[0] as Placed).message;
  return anthropicInvalid(
    `messages.${at}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.map((p) => String(p.block.id)).join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
  );
}
