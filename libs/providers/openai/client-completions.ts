import { type ChatChunk, type ChatFinishReason, type ChatRequest } from '../src/chat.js';
import {
  type ClientContext,
  type ClientFormat,
  type ClientStream,
  type SseFrame,
} from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { clientChatUsage } from './usage.js';
import {
  defined,
  invalid,
  isObject,
  notTranslatable,
  optBoolean,
  optInteger,
  optNumber,
  optObject,
  optStop,
  optString,
  reqString,
} from './fields.js';

/** OpenAI's default for the legacy endpoint: a completions client relies on it. */
const DEFAULT_MAX_TOKENS = 16;

/** Completions fields with no chat equivalent, each with the test that it is in use. */
const UNTRANSLATABLE: readonly (readonly [string, (v: unknown) => boolean, string])[] = [
  ['n', (v) => v !== 1, 'only one choice can be generated'],
  ['best_of', (v) => v !== 1, 'only one choice can be generated'],
  ['echo', (v) => v === true, 'the prompt cannot be echoed'],
  ['logprobs', () => true, 'log probabilities are not available'],
  ['suffix', (v) => v !== '', 'text after the insertion point cannot be given'],
  ['logit_bias', (v) => isObject(v) && Object.keys(v).length > 0, 'token biases are not available'],
];

function prompt(body: JsonObject): string {
  const raw = body.prompt;
  if (typeof raw === 'string') return raw;
  if (Array.isArray(raw) && raw.length === 1 && typeof raw[0] === 'string') return raw[0];
  if (Array.isArray(raw) && raw.length > 1 && raw.every((p) => typeof p === 'string')) {
    throw notTranslatable('prompt', 'a batch of several prompts cannot be sent as one conversation');
  }
  if (Array.isArray(raw) && raw.length > 0) {
    throw notTranslatable('prompt', 'token-id prompts need the model\u2019s own tokenizer');
  }
  throw invalid('prompt', "'prompt' must be a string or an array of strings.");
}

const finishReason = (reason: ChatFinishReason | null): string | null =>
  reason === 'tool_calls' || reason === 'function_call' ? 'stop' : reason;

const completionId = (ctx: ClientContext): string => `cmpl-${ctx.requestId.replace(/[^A-Za-z0-9]/g, '')}`;

/**
 * The legacy text-completions client format, served through the hub as one user message. The
 * answer comes back as `text_completion` objects and chunks, with usage and `[DONE]` as OpenAI
 * ends the stream.
 */
export const completionsClient: ClientFormat = {
  name: 'completions',
  vendorHeaders: ['openai-beta'],

  toHub(body: JsonObject): ChatRequest {
    const model = reqString(body, 'model');
    for (const [field, inUse, why] of UNTRANSLATABLE) {
      if (body[field] !== undefined && body[field] !== null && inUse(body[field]))
        throw notTranslatable(field, why);
    }
    return defined({
      model,
      messages: [{ role: 'user', content: prompt(body) }],
      stream: optBoolean(body, 'stream'),
      stream_options: optObject(body, 'stream_options') as ChatRequest['stream_options'],
      max_tokens: optInteger(body, 'max_tokens') ?? DEFAULT_MAX_TOKENS,
      temperature: optNumber(body, 'temperature'),
      top_p: optNumber(body, 'top_p'),
      stop: optStop(body),
      presence_penalty: optNumber(body, 'presence_penalty'),
      frequency_penalty: optNumber(body, 'frequency_penalty'),
      seed: optInteger(body, 'seed'),
      user: optString(body, 'user'),
    });
  },

  fromHub(completion, ctx) {
    const choice = completion.choices[0];
    return defined({
      id: completionId(ctx),
      object: 'text_completion',
      // Hubs of vendors without a timestamp or a model name (Anthropic, Bedrock's Converse) leave
      // them out: the edge's clock and the model asked stand in.
      created: completion.created || ctx.created,
      model: completion.model || ctx.model,
      choices: [
        {
          text: choice?.message.content ?? '',
          index: 0,
          logprobs: null,
          finish_reason: finishReason(choice?.finish_reason ?? null),
        },
      ],
      usage: completion.usage && clientChatUsage(completion.usage),
      system_fingerprint: completion.system_fingerprint ?? undefined,
    });
  },

  streamFromHub(ctx): ClientStream {
    const frame = (chunk: JsonObject): SseFrame => ({ data: JSON.stringify(chunk) });
    const head = (chunk: ChatChunk): JsonObject => ({
      id: completionId(ctx),
      object: 'text_completion',
      created: chunk.created || ctx.created,
    });
    // Hub chunks from OpenAI-style vendors carry it at runtime; the completions chunk shows it too.
    const fingerprint = (chunk: ChatChunk): JsonObject => {
      const fp = (chunk as unknown as JsonObject).system_fingerprint;
      return typeof fp === 'string' ? { system_fingerprint: fp } : {};
    };
    return {
      push(chunk: ChatChunk): SseFrame[] {
        if (chunk.choices.length === 0) {
          if (!chunk.usage || !ctx.includeUsage) return [];
          return [
            frame({
              ...head(chunk),
              choices: [],
              model: chunk.model || ctx.model,
              ...fingerprint(chunk),
              usage: clientChatUsage(chunk.usage),
            }),
          ];
        }
        const choice = chunk.choices[0]!;
        const text = choice.delta.content ?? '';
        // Role-only, reasoning and tool deltas have no text-completion form.
        if (text === '' && choice.finish_reason === null) return [];
        const choices = [
          { text, index: 0, logprobs: null, finish_reason: finishReason(choice.finish_reason) },
        ];
        const usage = ctx.includeUsage ? { usage: null } : {};
        return [
          frame({
            ...head(chunk),
            choices,
            model: chunk.model || ctx.model,
            ...fingerprint(chunk),
            ...usage,
          }),
        ];
      },
      end: () => [{ data: '[DONE]' }],
      fail: (error) => [
        frame({ error: { message: error.message, type: error.type, param: null, code: null } }),
      ],
    };
  },
};
