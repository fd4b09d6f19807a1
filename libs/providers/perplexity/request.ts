import { GatewayError } from '#libs/protocol';
import { type ChatContentPart, type ChatMessage, type ChatRequest } from '../src/chat.js';

const refuse = (param: string, why: string): GatewayError =>
  new GatewayError('invalid_request', `'${param}' is not supported for this model: ${why}.`, { param });

const asParts = (content: ChatMessage['content']): ChatContentPart[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : [...(content ?? [])];

/** Two turns of one role become one; text-only turns stay a string. */
function merge(a: ChatMessage, b: ChatMessage): ChatMessage {
  if (typeof a.content === 'string' && typeof b.content === 'string') {
    return { ...a, content: `${a.content}\n\n${b.content}` };
  }
  return { ...a, content: [...asParts(a.content), ...asParts(b.content)] };
}

/**
 * The hub request as Sonar accepts it. Sonar has no tool calling, so tools and a tool history
 * get a 400 rather than an answer that ignores them. It wants system messages first, then turns
 * alternating user / assistant: developer becomes system, and consecutive turns of one role
 * (which other formats allow, e.g. several Responses input messages) are joined.
 */
export function perplexityRequest(req: ChatRequest): ChatRequest {
  if (req.tools?.length) throw refuse('tools', 'Perplexity has no tool calling');
  if (req.tool_choice !== undefined && req.tool_choice !== 'none' && req.tool_choice !== 'auto') {
    throw refuse('tool_choice', 'Perplexity has no tool calling');
  }
  const messages: ChatMessage[] = [];
  req.messages.forEach((raw, i) => {
    if (raw.role === 'tool' || raw.tool_calls?.length) {
      throw refuse(`messages[${i}]`, 'Perplexity has no tool calling, so a tool-call history cannot be sent');
    }
    const message: ChatMessage = raw.role === 'developer' ? { ...raw, role: 'system' } : raw;
    const last = messages.at(-1);
    if (last && last.role === message.role) messages[messages.length - 1] = merge(last, message);
    else messages.push(message);
  });
  const { tool_choice: _choice, ...rest } = req;
  return { ...rest, messages };
}
