import {
  type ChatContentPart,
  type ChatMessage,
  type ChatRequest,
  type ChatTool,
  type ChatToolCall,
  type ChatToolChoice,
  type ChatUserLocation,
  type ChatWebSearch,
  type ThinkingBlock,
} from '../src/chat.js';
import { type Adjustments, untracked } from '../src/adjustments.js';
import { type JsonObject } from '../src/types.js';
import {
  defined,
  invalid,
  isObject,
  notTranslatable,
  optArray,
  optBoolean,
  optInteger,
  optNumber,
  optObject,
  optString,
  reqString,
} from './fields.js';
import { decodeThinking } from './client-responses-response.js';
import { flatToolName } from './tool-namespaces.js';

type Message = { -readonly [K in keyof ChatMessage]: ChatMessage[K] };

const INPUT_ROLES: ReadonlySet<string> = new Set(['user', 'system', 'developer', 'assistant']);

/** Responses features that live in OpenAI's stored state or hosted tools: nothing to translate to. */
function refuseStoredState(body: JsonObject): void {
  const why = 'it needs state stored at OpenAI, which this model does not have';
  for (const field of ['previous_response_id', 'conversation', 'prompt']) {
    if (body[field] !== undefined && body[field] !== null) throw notTranslatable(field, why);
  }
  if (body.background === true) throw notTranslatable('background', why);
  if ((optInteger(body, 'top_logprobs') ?? 0) > 0) throw notTranslatable('top_logprobs');
}

/**
 * Hints that tune OpenAI's own machinery (its prompt cache routing, its analytics, its capacity
 * tiers) and that no chat-format or Anthropic provider reads: dropped, and recorded.
 */
const HINTS = ['prompt_cache_key', 'client_metadata', 'service_tier'] as const;

/** A Responses API request -> the hub. */
export function responsesToHub(body: JsonObject, adjust: Adjustments = untracked()): ChatRequest {
  const model = reqString(body, 'model');
  refuseStoredState(body);
  for (const hint of HINTS) {
    if (body[hint] != null) adjust.drop(hint, () => notTranslatable(hint));
  }
  const messages: Message[] = [];
  const instructions = body.instructions;
  if (typeof instructions === 'string') messages.push({ role: 'system', content: instructions });
  else if (Array.isArray(instructions)) appendItems(messages, instructions, 'instructions');
  else if (instructions != null)
    throw invalid('instructions', "'instructions' must be a string or an array.");
  const input = body.input;
  if (typeof input === 'string') messages.push({ role: 'user', content: input });
  else if (Array.isArray(input)) appendItems(messages, input, 'input');
  else throw invalid('input', "'input' must be a string or an array of input items.");
  return defined({
    model,
    messages,
    stream: optBoolean(body, 'stream'),
    max_completion_tokens: optInteger(body, 'max_output_tokens'),
    temperature: optNumber(body, 'temperature'),
    top_p: optNumber(body, 'top_p'),
    ...toolFields(body, adjust),
    user: optString(body, 'user') ?? optString(body, 'safety_identifier'),
    metadata: optObject(body, 'metadata') as Record<string, string> | undefined,
    reasoning_effort: effort(optObject(body, 'reasoning')),
    response_format: responseFormat(optObject(body, 'text')),
  });
}

function appendItems(messages: Message[], items: readonly unknown[], param: string): void {
  // A reasoning item precedes the assistant turn it belongs to; it is attached to that turn.
  let reasoning: Pick<Message, 'reasoning_content' | 'thinking_blocks'> = {};
  items.forEach((raw, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(raw)) throw invalid(at, `'${at}' must be an object.`);
    const type = raw.type ?? 'message';
    const last = messages.at(-1);
    if (type === 'message') {
      const message = inputMessage(raw, at);
      messages.push(message.role === 'assistant' ? { ...message, ...reasoning } : message);
      if (message.role === 'assistant') reasoning = {};
    } else if (type === 'function_call') {
      const name = reqString(raw, 'name', `${at}.name`);
      const namespace = optString(raw, 'namespace', `${at}.namespace`);
      const call: ChatToolCall = {
        id: reqString(raw, 'call_id', `${at}.call_id`),
        type: 'function',
        function: {
          name: namespace === undefined ? name : flatToolName(namespace, name),
          arguments: reqString(raw, 'arguments', `${at}.arguments`),
        },
      };
      // Parallel calls arrive as consecutive items; chat carries them on one assistant message.
      if (last?.role === 'assistant' && Object.keys(reasoning).length === 0) {
        last.tool_calls = [...(last.tool_calls ?? []), call];
      } else {
        messages.push({ role: 'assistant', content: null, tool_calls: [call], ...reasoning });
        reasoning = {};
      }
    } else if (type === 'function_call_output') {
      const output = raw.output;
      messages.push({
        role: 'tool',
        tool_call_id: reqString(raw, 'call_id', `${at}.call_id`),
        content: typeof output === 'string' ? output : parts(output, `${at}.output`),
      });
    } else if (type === 'reasoning') {
      reasoning = reasoningOf(raw);
    } else {
      throw notTranslatable(`${at}.type`, `input items of type '${String(type)}' cannot be translated`);
    }
  });
}

function inputMessage(raw: JsonObject, at: string): Message {
  const role = raw.role;
  if (typeof role !== 'string' || !INPUT_ROLES.has(role)) {
    throw invalid(`${at}.role`, `'${at}.role' must be one of ${[...INPUT_ROLES].join(', ')}.`);
  }
  const content = raw.content;
  if (typeof content === 'string') return { role: role as Message['role'], content };
  const converted = parts(content, `${at}.content`);
  if (role !== 'assistant') return { role: role as Message['role'], content: converted };
  // Chat assistant turns are text: output_text and refusal parts join into one string.
  return { role: 'assistant', content: converted.map((p) => (p.type === 'text' ? p.text : '')).join('') };
}

function parts(raw: unknown, param: string): ChatContentPart[] {
  if (!Array.isArray(raw)) throw invalid(param, `'${param}' must be a string or an array of content parts.`);
  return raw.map((part, j): ChatContentPart => {
    const at = `${param}[${j}]`;
    if (!isObject(part)) throw invalid(at, `'${at}' must be an object.`);
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: reqString(part, 'text', `${at}.text`) };
      case 'refusal':
        return { type: 'text', text: reqString(part, 'refusal', `${at}.refusal`) };
      case 'input_image': {
        if (part.file_id != null)
          throw notTranslatable(`${at}.file_id`, 'files stored at OpenAI cannot be read');
        const detail =
          part.detail === 'low' || part.detail === 'high' || part.detail === 'auto' ? part.detail : undefined;
        const url = reqString(part, 'image_url', `${at}.image_url`);
        return { type: 'image_url', image_url: defined({ url, detail }) };
      }
      default:
        throw notTranslatable(
          `${at}.type`,
          `content parts of type '${String(part.type)}' cannot be translated`,
        );
    }
  });
}

function reasoningOf(raw: JsonObject): Pick<Message, 'reasoning_content' | 'thinking_blocks'> {
  const blocks: ThinkingBlock[] | null =
    typeof raw.encrypted_content === 'string' ? decodeThinking(raw.encrypted_content) : null;
  const summary = Array.isArray(raw.summary)
    ? raw.summary.map((s) => (isObject(s) && typeof s.text === 'string' ? s.text : '')).join('')
    : '';
  return defined({ reasoning_content: summary || undefined, thinking_blocks: blocks ?? undefined });
}

/** OpenAI's hosted web search tools, which a provider with its own search may run (hub `web_search`). */
const WEB_SEARCH_TOOLS: ReadonlySet<string> = new Set(['web_search', 'web_search_preview']);

/**
 * Function tools map one to one; a `namespace` is flattened into its function tools (restored in
 * the answer, see tool-namespaces.ts). The first `web_search` (or `web_search_preview`) tool goes
 * to the hub's `web_search` extension: the provider carries it (Anthropic's server search) or
 * drops and records it (chat providers). Any other built-in tool (file_search...) runs inside
 * OpenAI, so it is dropped from the list here, and recorded.
 */
function tools(
  raw: readonly unknown[] | undefined,
  adjust: Adjustments,
): { tools?: ChatTool[]; web_search?: ChatWebSearch } {
  if (raw === undefined) return {};
  let search: ChatWebSearch | undefined;
  const out = raw.flatMap((t, i): ChatTool[] => {
    const at = `tools[${i}]`;
    if (!isObject(t)) throw invalid(at, `'${at}' must be an object.`);
    if (t.type === 'function') return [functionTool(t, at)];
    if (t.type === 'namespace') return namespaceTools(t, at, adjust);
    const kind = String(t.type);
    // `external_web_access: false` asks for OpenAI's cached results only: a provider's live search
    // would go against it, so such a tool is dropped as before rather than carried.
    const liveAllowed = t.external_web_access !== false;
    if (search === undefined && WEB_SEARCH_TOOLS.has(kind) && liveAllowed) {
      search = webSearch(t, at, kind);
      return [];
    }
    adjust.drop(
      at,
      () => notTranslatable(`${at}.type`, `built-in tools such as '${kind}' run only at OpenAI`),
      liveAllowed ? kind : `${kind} (external_web_access: false)`,
    );
    return [];
  });
  // Chat providers refuse an empty tool list (the Responses API takes `tools: []`).
  return defined({ tools: out.length > 0 ? out : undefined, web_search: search });
}

/** The options of a web search tool the hub names; the rest are listed for the provider to record. */
function webSearch(t: JsonObject, at: string, kind: string): ChatWebSearch {
  const filters = optObject(t, 'filters', `${at}.filters`);
  const domains = filters && optArray(filters, 'allowed_domains', `${at}.filters.allowed_domains`);
  if (domains && !domains.every((d) => typeof d === 'string'))
    throw invalid(`${at}.filters.allowed_domains`, `'${at}.filters.allowed_domains' must be strings.`);
  const location = optObject(t, 'user_location', `${at}.user_location`);
  const known = new Set(['type', 'filters', 'user_location', 'search_context_size']);
  const other = Object.keys(t).filter((k) => !known.has(k) && t[k] != null);
  return defined({
    param: at,
    kind,
    allowed_domains: domains && domains.length > 0 ? (domains as string[]) : undefined,
    user_location: location && userLocation(location, `${at}.user_location`),
    search_context_size: optString(t, 'search_context_size', `${at}.search_context_size`),
    other_options: other.length > 0 ? other : undefined,
  });
}

function userLocation(raw: JsonObject, at: string): ChatUserLocation | undefined {
  const location = defined({
    city: optString(raw, 'city', `${at}.city`),
    region: optString(raw, 'region', `${at}.region`),
    country: optString(raw, 'country', `${at}.country`),
    timezone: optString(raw, 'timezone', `${at}.timezone`),
  });
  return Object.keys(location).length > 0 ? location : undefined;
}

/**
 * The tool fields of the hub request. Chat Completions refuses `tool_choice` and
 * `parallel_tool_calls` without tools, which the Responses API takes (Codex always sends both):
 * without tools, `auto` and `none` both mean "no call" and are left out, parallel calls too; a
 * forced tool with no tool left to force is refused.
 */
function toolFields(
  body: JsonObject,
  adjust: Adjustments,
): Pick<ChatRequest, 'tools' | 'tool_choice' | 'parallel_tool_calls' | 'web_search'> {
  const { tools: list, web_search } = tools(optArray(body, 'tools'), adjust);
  const choice = body.tool_choice == null ? undefined : toolChoice(body.tool_choice);
  const parallel = optBoolean(body, 'parallel_tool_calls');
  if (list !== undefined)
    return defined({ tools: list, tool_choice: choice, parallel_tool_calls: parallel, web_search });
  const search = defined({ web_search });
  if (choice === undefined || choice === 'auto' || choice === 'none') return search;
  throw invalid(
    'tool_choice',
    "'tool_choice' forces a tool call, but the request has no function tool to call.",
  );
}

function functionTool(t: JsonObject, at: string, namespace?: string): ChatTool {
  const name = reqString(t, 'name', `${at}.name`);
  return {
    type: 'function',
    function: defined({
      name: namespace === undefined ? name : flatToolName(namespace, name),
      description: optString(t, 'description', `${at}.description`),
      parameters: optObject(t, 'parameters', `${at}.parameters`),
      strict: optBoolean(t, 'strict', `${at}.strict`),
    }),
  };
}

function namespaceTools(t: JsonObject, at: string, adjust: Adjustments): ChatTool[] {
  const namespace = reqString(t, 'name', `${at}.name`);
  const inner = optArray(t, 'tools', `${at}.tools`) ?? [];
  const flat = inner.map((tool, j) => {
    const where = `${at}.tools[${j}]`;
    if (!isObject(tool) || tool.type !== 'function')
      throw notTranslatable(`${where}.type`, 'only function tools inside a namespace can be translated');
    return functionTool(tool, where, namespace);
  });
  adjust.carried(`flattened ${at} namespace ${namespace} (${flat.length} tools)`);
  return flat;
}

function toolChoice(raw: unknown): ChatToolChoice {
  if (raw === 'none' || raw === 'auto' || raw === 'required') return raw;
  if (isObject(raw) && raw.type === 'function' && typeof raw.name === 'string') {
    return { type: 'function', function: { name: raw.name } };
  }
  throw notTranslatable(
    'tool_choice',
    "only 'none', 'auto', 'required' or a named function can be translated",
  );
}

function effort(reasoning: JsonObject | undefined): ChatRequest['reasoning_effort'] {
  const value = reasoning?.effort;
  if (value == null || value === 'none') return undefined;
  if (value === 'minimal' || value === 'low' || value === 'medium' || value === 'high') return value;
  if (value === 'xhigh') return 'high'; // the hub's highest effort
  throw invalid(
    'reasoning.effort',
    "'reasoning.effort' must be one of none, minimal, low, medium, high, xhigh.",
  );
}

function responseFormat(text: JsonObject | undefined): JsonObject | undefined {
  const format = text && optObject(text, 'format', 'text.format');
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    const { type: _t, ...schema } = format;
    return { type: 'json_schema', json_schema: schema };
  }
  throw invalid('text.format.type', "'text.format.type' must be one of text, json_object, json_schema.");
}
