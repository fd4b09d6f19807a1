import { type MessagePart, type OutputMessage } from '#libs/telemetry';
import {
  blob,
  list,
  obj,
  type Obj,
  other,
  reasoning,
  str,
  text,
  toolCall,
  toolResponse,
} from '../src/content-parts.js';

/** Converse messages in the GenAI conventions' shapes (content capture of answers). */

/** A Converse answer: one message, its stop reason. */
export function converseOutput(body: Obj): OutputMessage {
  return {
    role: 'assistant',
    parts: list(obj(obj(body.output).message).content).map(block),
    finish_reason: str(body.stopReason) ?? 'error',
  };
}

function block(raw: unknown): MessagePart {
  const b = obj(raw);
  if (typeof b.text === 'string') return text(b.text);
  if (b.toolUse !== undefined) {
    const use = obj(b.toolUse);
    return toolCall(use.toolUseId, use.name, use.input);
  }
  if (b.toolResult !== undefined) {
    const result = obj(b.toolResult);
    return toolResponse(result.toolUseId, list(result.content).map(block));
  }
  if (b.reasoningContent !== undefined)
    return reasoning(str(obj(obj(b.reasoningContent).reasoningText).text) ?? '');
  if (b.image !== undefined) {
    const image = obj(b.image);
    return blob(`image/${str(image.format) ?? ''}`, obj(image.source).bytes, 'image');
  }
  return other(Object.keys(b)[0]);
}
