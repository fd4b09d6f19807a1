import { mockId, unixSeconds } from './ids.js';
import { completionsTooLong, tooLong } from './context-window.js';
import { openAIError } from './errors.js';
import { chatUsage } from './openai-usage.js';
import {
  isObject,
  openAIInt,
  openAIMissing,
  openAIModel,
  openAIUnrecognized,
  stopList,
  unknownField,
  type Check,
} from './params.js';
import { DONE_FRAME, dataFrame } from './sse.js';
import { replyText, shapeReply, tokensForLength, type ShapedReply } from './text.js';
import type { EndpointInput, EndpointReply, JsonObject } from './types.js';

const PARAMS = new Set([
  'model',
  'prompt',
  'best_of',
  'echo',
  'frequency_penalty',
  'logit_bias',
  'logprobs',
  'max_tokens',
  'n',
  'presence_penalty',
  'seed',
  'stop',
  'stream',
  'stream_options',
  'suffix',
  'temperature',
  'top_p',
  'user',
]);
/** The legacy endpoint's default `max_tokens`: short answers cut with `length` are the norm there. */
const DEFAULT_MAX_TOKENS = 16;

/** `POST /v1/completions` (legacy text completions): one choice per prompt and per `n`. */
export function completions({ body, behaviour }: EndpointInput): EndpointReply {
  const invalid = validate(body);
  if (invalid) return invalid;
  const prompts = promptList(body.prompt);
  const n = typeof body.n === 'number' ? body.n : 1;
  const echo = body.echo === true;
  const options = {
    chunkCount: behaviour.chunkCount,
    maxTokens: typeof body.max_tokens === 'number' ? body.max_tokens : DEFAULT_MAX_TOKENS,
    stops: stopList(body.stop),
  };
  const replies: ShapedReply[] = prompts.map((p) =>
    shapeReply(replyText(p, behaviour.reply, behaviour.chunkCount), options),
  );
  const promptTokens = tokensForLength(prompts.reduce((sum, p) => sum + p.length, 0));
  if (tooLong(behaviour, promptTokens + options.maxTokens))
    return completionsTooLong(behaviour.contextWindow!, promptTokens, options.maxTokens);
  const completionTokens = n * replies.reduce((sum, r) => sum + r.tokens, 0);
  const base = {
    id: mockId('cmpl-'),
    object: 'text_completion',
    created: unixSeconds(),
    model: body.model as string,
    system_fingerprint: 'fp_mock',
  };
  const cacheWrites = behaviour.cacheWrite5mTokens + behaviour.cacheWrite1hTokens;
  const usage = chatUsage(promptTokens, completionTokens, behaviour.cachedTokens, cacheWrites);
  const finish = (r: ShapedReply): string => (r.finish === 'length' ? 'length' : 'stop');

  if (body.stream !== true) {
    const choices = [];
    for (let i = 0; i < replies.length * n; i++) {
      const r = replies[Math.floor(i / n)] as ShapedReply;
      const text = echo ? (prompts[Math.floor(i / n)] as string) + r.text : r.text;
      choices.push({ text, index: i, logprobs: null, finish_reason: finish(r) });
    }
    return { kind: 'json', status: 200, body: { ...base, choices, usage } };
  }

  const includeUsage = isObject(body.stream_options) && body.stream_options.include_usage === true;
  const frame = (choices: object[], u: object | null = null): string =>
    dataFrame({ ...base, choices, ...(includeUsage ? { usage: u } : {}) });
  const steps = Math.max(1, ...replies.map((r) => r.deltas.length));
  const writes: string[] = [];
  for (let step = 0; step < steps; step++) {
    let write = '';
    for (let i = 0; i < replies.length * n; i++) {
      const r = replies[Math.floor(i / n)] as ShapedReply;
      let text = r.deltas[step];
      if (step === 0 && echo) text = (prompts[Math.floor(i / n)] as string) + (text ?? '');
      if (text !== undefined) write += frame([{ text, index: i, logprobs: null, finish_reason: null }]);
    }
    writes.push(write);
  }
  let tail = '';
  for (let i = 0; i < replies.length * n; i++) {
    tail += frame([
      {
        text: '',
        index: i,
        logprobs: null,
        finish_reason: finish(replies[Math.floor(i / n)] as ShapedReply),
      },
    ]);
  }
  if (includeUsage) tail += frame([], usage);
  writes[writes.length - 1] += tail + DONE_FRAME;
  return { kind: 'stream', writes };
}

function validate(body: JsonObject): Check {
  const unknown = unknownField(body, PARAMS);
  if (unknown !== null) return openAIUnrecognized(unknown);
  const model = openAIModel(body);
  if (model) return model;
  if (body.prompt === undefined) return openAIMissing('prompt');
  if (promptList(body.prompt).length === 0) {
    return openAIError(
      400,
      "Invalid 'prompt': expected a string, an array of strings or an array of tokens.",
      'invalid_request_error',
      { param: 'prompt', code: 'invalid_type' },
    );
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return openAIError(
      400,
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_request_error',
      { param: 'stream_options' },
    );
  }
  return openAIInt(body, 'n', 1, 128) ?? openAIInt(body, 'max_tokens', 0);
}

/** A string, a list of strings, or token arrays (read as their numbers joined by spaces). */
function promptList(prompt: unknown): string[] {
  if (typeof prompt === 'string') return [prompt];
  if (!Array.isArray(prompt) || prompt.length === 0) return [];
  if (prompt.every((p) => typeof p === 'number')) return [prompt.join(' ')];
  return prompt.map((p) => (typeof p === 'string' ? p : Array.isArray(p) ? p.join(' ') : ''));
}
