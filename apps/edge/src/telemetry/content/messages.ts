import { type InputMessage, type MessagePart, type OutputMessage } from '#libs/telemetry';
import { anthropicMessage, anthropicOutput, systemInstructions } from './anthropic-content.js';
import {
  chatMessage,
  choiceMessages,
  promptMessages,
  responsesInput,
  responsesOutput,
} from './openai-content.js';
import { list, type Obj, str } from './parts.js';
import { responsesReason } from '../response-facts.js';

export interface InputContent {
  /** Instructions the format takes apart from the messages (Responses, Messages); else null. */
  readonly system: readonly MessagePart[] | null;
  readonly messages: readonly InputMessage[];
}

/**
 * What the client asked, read from its body as received (in its own format, whichever provider
 * then served it). Only content fields are read: nothing else of the body, and never a header.
 */
export function inputContent(endpoint: string, body: Obj): InputContent {
  switch (endpoint) {
    case 'chat':
      return { system: null, messages: list(body.messages).map(chatMessage) };
    case 'completions':
      return { system: null, messages: promptMessages(body.prompt) };
    case 'embeddings':
      return { system: null, messages: promptMessages(body.input) };
    case 'responses':
      return { system: systemInstructions(str(body.instructions)), messages: responsesInput(body.input) };
    case 'messages':
      return { system: systemInstructions(body.system), messages: list(body.messages).map(anthropicMessage) };
    default:
      return { system: null, messages: [] };
  }
}

/**
 * What the model answered, from the upstream's body in any wire format (chat, completions,
 * responses, messages); null for what carries no generated content (embeddings' vectors, errors).
 */
export function outputMessages(answer: Obj | null): OutputMessage[] | null {
  if (answer === null) return null;
  if (Array.isArray(answer.choices)) return choiceMessages(answer.choices);
  if (answer.object === 'response') return [responsesOutput(answer, responsesReason(answer))];
  if (answer.type === 'message') return [anthropicOutput(answer)];
  return null;
}
