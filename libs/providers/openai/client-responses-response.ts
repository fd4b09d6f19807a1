import { type ChatCompletion, type ChatFinishReason, type ThinkingBlock } from '../src/chat.js';
import { type ClientContext } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { isObject, upstreamError } from './fields.js';
import { type ClientToolName, clientToolName, namespacedToolNames } from './tool-namespaces.js';
import { responsesUsage } from './usage.js';

export { responsesUsage };

/**
 * Hub completion -> Responses API `response` object, and the pieces the stream shares with it.
 * Ids derive from the gateway's request id, so a response and its stream events agree.
 */

export const responseId = (ctx: ClientContext): string =>
  `resp_${ctx.requestId.replace(/[^A-Za-z0-9]/g, '')}`;
export const itemId = (ctx: ClientContext, kind: 'msg' | 'fc' | 'rs' | 'ws', index: number): string =>
  `${kind}_${ctx.requestId.replace(/[^A-Za-z0-9]/g, '')}_${index}`;

/**
 * Anthropic thinking blocks must go back signed in a tool loop. The Responses API's place for
 * opaque reasoning state is `encrypted_content`; the blocks travel there, marked as ours.
 */
const THINKING_PREFIX = 'gw-thinking:';
export const encodeThinking = (blocks: readonly ThinkingBlock[]): string =>
  THINKING_PREFIX + Buffer.from(JSON.stringify(blocks)).toString('base64');

/** Our own encoding back to blocks; OpenAI's real encrypted reasoning means nothing elsewhere: null. */
export function decodeThinking(encrypted: string): ThinkingBlock[] | null {
  if (!encrypted.startsWith(THINKING_PREFIX)) return null;
  try {
    const blocks: unknown = JSON.parse(
      Buffer.from(encrypted.slice(THINKING_PREFIX.length), 'base64').toString(),
    );
    return Array.isArray(blocks) ? (blocks as ThinkingBlock[]) : null;
  } catch {
    return null;
  }
}

/** `length` and `content_filter` end a response as incomplete, with OpenAI's reasons. */
export function terminalStatus(finish: ChatFinishReason | null): {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: string } | null;
} {
  if (finish === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The response object around the output, echoing the request's settings as OpenAI does. */
export function responseShell(ctx: ClientContext, status: string): JsonObject {
  const req = ctx.request;
  const reasoning = isObject(req.reasoning) ? req.reasoning : {};
  const text = isObject(req.text) ? req.text : {};
  return {
    id: responseId(ctx),
    object: 'response',
    created_at: ctx.created,
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    max_tool_calls: req.max_tool_calls ?? null,
    model: ctx.model,
    output: [],
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: reasoning.effort ?? null, summary: reasoning.summary ?? null },
    service_tier: 'default',
    // Nothing is stored: the response cannot be retrieved or continued by id.
    store: false,
    temperature: req.temperature ?? 1,
    text: { format: text.format ?? { type: 'text' }, verbosity: text.verbosity ?? 'medium' },
    tool_choice: req.tool_choice ?? 'auto',
    tools: req.tools ?? [],
    top_logprobs: 0,
    top_p: req.top_p ?? 1,
    truncation: req.truncation ?? 'disabled',
    usage: null,
    user: req.user ?? null,
    metadata: req.metadata ?? {},
  };
}

export const outputText = (text: string): JsonObject => ({
  type: 'output_text',
  text,
  annotations: [],
  logprobs: [],
});

export function reasoningItem(id: string, summary: string, blocks: readonly ThinkingBlock[]): JsonObject {
  return {
    id,
    type: 'reasoning',
    summary: summary ? [{ type: 'summary_text', text: summary }] : [],
    ...(blocks.length > 0 && { encrypted_content: encodeThinking(blocks) }),
  };
}

export const messageItem = (id: string, status: string, content: readonly JsonObject[]): JsonObject => ({
  id,
  type: 'message',
  status,
  role: 'assistant',
  content,
});

export const functionCallItem = (
  id: string,
  status: string,
  callId: string,
  { name, namespace }: ClientToolName,
  args: string,
): JsonObject => ({
  id,
  type: 'function_call',
  status,
  arguments: args,
  call_id: callId,
  name,
  ...(namespace !== undefined && { namespace }),
});

/**
 * A search the provider ran (hub `web_search_calls`), as OpenAI's own web search reports one.
 * Its results are not shown: OpenAI's item has no place for them either (the text cites them).
 */
export const webSearchCallItem = (id: string, status: string, query: string): JsonObject => ({
  id,
  type: 'web_search_call',
  status,
  action: { type: 'search', query },
});

/** A whole hub completion -> a `response` object. */
export function responseFromHub(completion: ChatCompletion, ctx: ClientContext): JsonObject {
  const choice = completion.choices[0];
  if (!choice) throw upstreamError('The provider returned a completion without choices.');
  const { status, incomplete_details } = terminalStatus(choice.finish_reason);
  const message = choice.message;
  const output: JsonObject[] = [];
  const blocks = message.thinking_blocks ?? [];
  if (message.reasoning_content || blocks.length > 0) {
    output.push(reasoningItem(itemId(ctx, 'rs', output.length), message.reasoning_content ?? '', blocks));
  }
  // The searches ran before the answer was written: their items come first, as OpenAI orders them.
  for (const search of message.web_search_calls ?? []) {
    output.push(webSearchCallItem(itemId(ctx, 'ws', output.length), 'completed', search.query));
  }
  const content: JsonObject[] = [];
  const toolNames = namespacedToolNames(ctx.request);
  if (message.content) content.push(outputText(message.content));
  if (message.refusal) content.push({ type: 'refusal', refusal: message.refusal });
  if (content.length > 0) output.push(messageItem(itemId(ctx, 'msg', output.length), 'completed', content));
  for (const call of message.tool_calls ?? []) {
    output.push(
      functionCallItem(
        itemId(ctx, 'fc', output.length),
        'completed',
        call.id,
        clientToolName(toolNames, call.function.name),
        call.function.arguments,
      ),
    );
  }
  // A cut-off answer cuts off its last item only, as the stream shows it.
  const last = output.at(-1);
  if (status === 'incomplete' && last && 'status' in last) output[output.length - 1] = { ...last, status };
  return {
    ...responseShell(ctx, status),
    incomplete_details,
    output,
    usage: responsesUsage(completion.usage),
  };
}
