import { mockId, unixSeconds } from './ids.js';
import { outputItem, responseObject, type ResponsesPlan } from './openai-responses-objects.js';
import { isObject } from './params.js';
import { buildFailedResponsesStream, buildResponsesStream } from './openai-responses-stream.js';
import { responsesTooLong, tooLong } from './context-window.js';
import { imageCount, promptWithImages, replyText, shapeReply, textOf, tokensForLength } from './text.js';
import { planToolCall, type ToolForcing, type ToolSpec } from './tools.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';
import { validateResponsesRequest } from './validate-openai-responses.js';

/** `POST /v1/responses`. */
export function responses({ body, behaviour }: EndpointInput): EndpointReply {
  const invalid = validateResponsesRequest(body);
  if (invalid) return invalid;
  const input = readInput(body.input);
  const instructions = typeof body.instructions === 'string' ? body.instructions : '';
  const toolCall = planToolCall(
    tools(body.tools),
    forcing(body.tool_choice),
    input.lastIsUser ? input.lastUser : null,
  );
  const plan: ResponsesPlan = {
    body,
    id: mockId('resp_'),
    createdAt: unixSeconds(),
    itemId: toolCall ? mockId('fc_') : mockId('msg_'),
    reply: shapeReply(replyText(input.lastUser, behaviour.reply, behaviour.chunkCount), {
      chunkCount: behaviour.chunkCount,
      maxTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined,
    }),
    toolCall,
    callId: mockId('call_'),
    inputTokens: tokensForLength(input.chars + instructions.length),
    cachedTokens: behaviour.cachedTokens,
    cacheWriteTokens: behaviour.cacheWrite5mTokens + behaviour.cacheWrite1hTokens,
  };
  // OpenAI counts the input once the stream has begun: a streamed request too long fails in-band.
  if (tooLong(behaviour, plan.inputTokens)) {
    return body.stream === true
      ? { kind: 'stream', writes: buildFailedResponsesStream(plan, 'context_length_exceeded') }
      : responsesTooLong();
  }
  if (body.stream === true) return { kind: 'stream', writes: buildResponsesStream(plan) };
  return { kind: 'json', status: 200, body: responseObject(plan, 'final', [outputItem(plan, 'final')]) };
}

interface ReadInput {
  readonly chars: number;
  readonly lastUser: string;
  readonly lastIsUser: boolean;
}

/** `input` as a string, or as items (messages with string or part content, function call outputs). */
function readInput(input: unknown): ReadInput {
  if (typeof input === 'string') return { chars: input.length, lastUser: input, lastIsUser: true };
  let chars = 0;
  let lastUser = '';
  let lastIsUser = false;
  for (const item of Array.isArray(input) ? input : []) {
    if (!isObject(item)) continue;
    const text = item.type === 'function_call_output' ? textOf(item.output) : textOf(item.content);
    chars += text.length;
    lastIsUser = item.role === 'user';
    if (lastIsUser) lastUser = promptWithImages(text, imageCount(item.content));
  }
  return { chars, lastUser, lastIsUser };
}

function tools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((t): t is JsonObject => isObject(t) && t.type === 'function' && typeof t.name === 'string')
    .map((t) => ({ name: t.name as string, schema: t.parameters }));
}

function forcing(choice: unknown): ToolForcing {
  if (choice === 'none') return { kind: 'none' };
  if (choice === 'required') return { kind: 'any' };
  if (isObject(choice) && choice.type === 'function' && typeof choice.name === 'string')
    return { kind: 'named', name: choice.name };
  return { kind: 'auto' };
}
