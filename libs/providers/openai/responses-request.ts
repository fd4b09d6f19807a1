import {
  type ChatContentPart,
  type ChatMessage,
  type ChatRequest,
  type ChatTool,
  type ChatToolCall,
  type ChatToolChoice,
  type ThinkingBlock,
} from '../src/chat.js';
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
import { decodeThinking } from './responses-response.js';

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

/** A Responses API request -> the hub. */
export function responsesToHub(body: JsonObject): ChatRequest {
  const model = reqString(body, 'model');
  refuseStoredState(body);
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
    tools: tools(optArray(body, 'tools')),
    tool_choice: body.tool_choice == null ? undefined : toolChoice(body.tool_choice),
    parallel_tool_calls: optBoolean(body, 'parallel_tool_calls'),
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
      const call: ChatToolCall = {
        id: reqString(raw, 'call_id', `${at}.call_id`),
        type: 'function',
        function: {
          name: reqString(raw, 'name', `${at}.name`),
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

function tools(raw: readonly unknown[] | undefined): ChatTool[] | undefined {
  return raw?.map((t, i) => {
    const at = `tools[${i}]`;
    if (!isObject(t) || t.type !== 'function') {
      throw notTranslatable(
        `${at}.type`,
        `built-in tools such as '${String(isObject(t) ? t.type : t)}' run only at OpenAI`,
      );
    }
    return {
      type: 'function',
      function: defined({
        name: reqString(t, 'name', `${at}.name`),
        description: optString(t, 'description', `${at}.description`),
        parameters: optObject(t, 'parameters', `${at}.parameters`),
        strict: optBoolean(t, 'strict', `${at}.strict`),
      }),
    };
  });
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
