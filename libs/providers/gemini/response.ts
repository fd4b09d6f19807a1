import {
  type ChatCompletion,
  type ChatCompletionMessage,
  type ChatFinishReason,
  type ChatToolCall,
} from '../src/chat.js';
import {
  candidatesOf,
  finishReasonOf,
  isObject,
  type Json,
  partsOf,
  pieceOf,
  responseIdOf,
  upstreamError,
} from './mapping.js';
import { geminiHubUsage } from './usage.js';

type Choice = ChatCompletion['choices'][number];

/**
 * Gemini `GenerateContentResponse` -> hub completion. Candidates become choices by index; text
 * parts are joined into `content`, thought parts (`thought: true`, summaries sent when the
 * request asked `includeThoughts`) into `reasoning_content`, function calls become `tool_calls`
 * with their thought signature inside the id (mapping.ts). A prompt Google blocked has no
 * candidates: one empty choice finishing `content_filter`. `created` is 0: Google sends no
 * timestamp, and client translators take theirs from the edge's clock.
 */
export function hubCompletionOfGemini(body: unknown): ChatCompletion {
  if (!isObject(body)) throw upstreamError('Gemini returned a body that is not an object.');
  const candidates = candidatesOf(body);
  const choices = candidates.map(({ index, candidate }) => choiceOf(index, candidate));
  if (choices.length === 0) {
    if (!isObject(body.promptFeedback) || typeof body.promptFeedback.blockReason !== 'string') {
      throw upstreamError('Gemini returned no candidates and no reason.');
    }
    choices.push(emptyChoice(0, 'content_filter'));
  }
  return {
    id: responseIdOf(body, JSON.stringify(body)),
    object: 'chat.completion',
    created: 0,
    model: typeof body.modelVersion === 'string' ? body.modelVersion : '',
    choices: choices.sort((a, b) => a.index - b.index),
    usage: geminiHubUsage(body.usageMetadata),
  };
}

function choiceOf(index: number, candidate: Json): Choice {
  const texts: string[] = [];
  const reasoning: string[] = [];
  const calls: ChatToolCall[] = [];
  for (const part of partsOf(candidate)) {
    const piece = pieceOf(part, calls.length);
    if (piece?.kind === 'call') calls.push(piece.call);
    else if (piece?.kind === 'reasoning') reasoning.push(piece.text);
    else if (piece?.kind === 'text') texts.push(piece.text);
  }
  const message: ChatCompletionMessage = {
    role: 'assistant',
    content: texts.length > 0 ? texts.join('') : null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(reasoning.length > 0 ? { reasoning_content: reasoning.join('') } : {}),
  };
  return { index, message, finish_reason: finishReasonOf(candidate.finishReason, calls.length > 0) };
}

const emptyChoice = (index: number, finish: ChatFinishReason): Choice => ({
  index,
  message: { role: 'assistant', content: null },
  finish_reason: finish,
});

/** Google's error body `{error: {code, message, status}}` -> its message. */
export function geminiErrorMessage(body: unknown): string | null {
  // Some Google front ends wrap the error body in a one-element list.
  const error = Array.isArray(body) && body.length === 1 ? body[0] : body;
  if (!isObject(error) || !isObject(error.error)) return null;
  const message = error.error.message;
  return typeof message === 'string' && message !== '' ? message : null;
}
