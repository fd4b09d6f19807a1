import { GatewayError } from '#libs/protocol';
import { type ChatRequest, type ChatToolCall } from './chat.js';

/**
 * Checks of hub fields that a client translator may have passed through as the client sent them
 * (the chat client keeps fields as they are): provider translators read them through these.
 */

/** `stop` as a list (a string is one sequence); undefined when absent or empty. */
export function stopList(stop: ChatRequest['stop']): string[] | undefined {
  if (stop === undefined || stop === null) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) {
    throw invalid('stop', 'stop must be a string or an array of strings.');
  }
  return list.length > 0 ? [...list] : undefined;
}

/** An assistant's tool call, checked to have the id and name every target needs. */
export function checkedToolCall(call: unknown, where: string): ChatToolCall {
  const c = call as Partial<ChatToolCall> | null;
  if (
    typeof c !== 'object' ||
    c === null ||
    typeof c.id !== 'string' ||
    typeof c.function !== 'object' ||
    c.function === null ||
    typeof c.function.name !== 'string'
  ) {
    throw invalid(where, `${where} must be a function call with an id and a name.`);
  }
  return c as ChatToolCall;
}

const invalid = (param: string, message: string): GatewayError =>
  new GatewayError('invalid_request', message, { param });
