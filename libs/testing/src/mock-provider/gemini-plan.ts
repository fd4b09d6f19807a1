/**
 * Everything decided about one Gemini answer, by the mock's shared behaviour (reply text, tool
 * calls, cache hits): the whole response and the stream are views of it.
 */
import type {
  GeminiContent,
  GeminiPart,
  GeminiRequest,
  GeminiToolConfig,
} from '../../../providers/gemini/wire.js';
import type { MockBehaviour } from './behaviour.js';
import { mockId } from './ids.js';
import { familyOf } from './gemini-models.js';
import { firstWords, promptWithImages, replyText, shapeReply, tokensForLength, tokensOf } from './text.js';
import type { ShapedReply } from './text.js';
import { planToolCalls, type ToolCallPlan, type ToolForcing, type ToolSpec } from './tools.js';

export interface GeminiPlan {
  readonly model: string;
  readonly responseId: string;
  readonly candidates: number;
  /** Whether the model thought (signatures and `thoughtsTokenCount` follow). */
  readonly thinking: boolean;
  /** The thought summary, sent as a `thought: true` part when `includeThoughts` asks. */
  readonly thought: string | null;
  readonly reply: ShapedReply;
  readonly calls: readonly { readonly id: string; readonly call: ToolCallPlan }[];
  readonly usage: GeminiUsagePlan;
}

export interface GeminiUsagePlan {
  /** Including the cached tokens and the images, as Google counts them. */
  readonly prompt: number;
  readonly images: number;
  readonly cached: number;
  readonly candidates: number;
  readonly thoughts: number;
}

/** Google bills an image of up to 384x384 px as 258 tokens; the mock counts every image so. */
export const IMAGE_TOKENS = 258;
/** The size of a `cachedContents/...` cache when `behaviour.cachedTokens` does not set it. */
export const EXPLICIT_CACHE_TOKENS = 1024;

export function planAnswer(request: GeminiRequest, model: string, behaviour: MockBehaviour): GeminiPlan {
  const prompt = promptOf(request);
  const thinking = thinks(request, model);
  const thoughtText = thinking ? `Thinking about: ${firstWords(prompt.lastUser, 8) || 'the results'}` : '';
  const thoughtTokens = thinking ? tokensOf(thoughtText) : 0;
  const calls = planToolCalls(tools(request), forcing(request.toolConfig), prompt.lastUserText, true);
  const config = request.generationConfig ?? {};
  const budget = config.maxOutputTokens;
  const reply = shapeReply(
    calls.length > 0 ? '' : replyText(prompt.lastUser, behaviour.reply, behaviour.chunkCount),
    {
      chunkCount: behaviour.chunkCount,
      // Thinking counts against maxOutputTokens: a small budget can leave no room for the answer.
      maxTokens: budget === undefined ? undefined : Math.max(0, budget - thoughtTokens),
      stops: config.stopSequences,
    },
  );
  const n = Math.max(1, config.candidateCount ?? 1);
  const cached = cacheHit(request, prompt.tokens, behaviour);
  return {
    model,
    responseId: mockId('resp_'),
    candidates: n,
    thinking,
    thought: thinking && config.thinkingConfig?.includeThoughts === true ? thoughtText : null,
    reply,
    calls: calls.map((call) => ({ id: mockId('fc_'), call })),
    usage: {
      prompt: prompt.tokens + (request.cachedContent ? cached : 0),
      images: prompt.images * IMAGE_TOKENS,
      cached,
      candidates:
        n * (calls.length > 0 ? calls.reduce((s, c) => s + tokensOf(c.arguments) + 8, 0) : reply.tokens),
      thoughts: n * thoughtTokens,
    },
  };
}

/** An explicit cache adds its own tokens to the prompt; otherwise an implicit hit on the prompt. */
function cacheHit(request: GeminiRequest, promptTokens: number, behaviour: MockBehaviour): number {
  if (request.cachedContent) return behaviour.cachedTokens || EXPLICIT_CACHE_TOKENS;
  return Math.min(behaviour.cachedTokens, promptTokens);
}

interface Prompt {
  readonly tokens: number;
  readonly images: number;
  /** The last user message without function responses (images shown as `[N images]`). */
  readonly lastUser: string;
  /** `lastUser` when the conversation ends on it: only then may the mock call a tool. */
  readonly lastUserText: string | null;
}

/**
 * A quarter of the characters of every text, call and response (and of the tools' JSON) plus the
 * images: the same count for `generateContent` and `countTokens`.
 */
export function promptOf(request: GeminiRequest): Prompt {
  let chars = request.tools ? JSON.stringify(request.tools).length : 0;
  let images = 0;
  let lastUser = '';
  const contents = [
    ...(request.systemInstruction ? [request.systemInstruction] : []),
    ...(request.contents ?? []),
  ];
  for (const content of contents) {
    const parts = content.parts ?? [];
    chars += parts.reduce((sum, p) => sum + partChars(p), 0);
    const partImages = parts.filter(isImage).length;
    images += partImages;
    if (content !== request.systemInstruction && isUserText(content)) {
      lastUser = promptWithImages(
        parts
          .map((p) => p.text ?? '')
          .join(' ')
          .trim(),
        partImages,
      );
    }
  }
  const last = request.contents?.[request.contents.length - 1];
  return {
    tokens: tokensForLength(chars) + images * IMAGE_TOKENS,
    images,
    lastUser,
    lastUserText: last && isUserText(last) ? lastUser : null,
  };
}

/** A user message proper: a turn carrying function responses (and maybe an image) answers a call. */
const isUserText = (c: GeminiContent): boolean =>
  c.role !== 'model' && (c.parts ?? []).every((p) => p.functionResponse === undefined);

const isImage = (p: GeminiPart): boolean =>
  (p.inlineData?.mimeType ?? p.fileData?.mimeType ?? '').startsWith('image/');

function partChars(part: GeminiPart): number {
  if (part.text !== undefined) return part.text.length;
  if (part.functionCall)
    return JSON.stringify(part.functionCall.args ?? {}).length + part.functionCall.name.length;
  if (part.functionResponse) return JSON.stringify(part.functionResponse.response).length;
  return 0;
}

/** Whether the model thinks: by the request's budget or level, else by the family's default. */
function thinks(request: GeminiRequest, model: string): boolean {
  const rules = familyOf(model).thinking;
  if (rules === null) return false;
  const config = request.generationConfig?.thinkingConfig;
  if (config?.thinkingLevel !== undefined) return true;
  const budget = config?.thinkingBudget;
  return budget === undefined ? rules.defaultOn : budget !== 0;
}

function tools(request: GeminiRequest): ToolSpec[] {
  return (request.tools ?? []).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((d) => ({
      name: d.name,
      schema: lowerTypes(d.parameters ?? d.parametersJsonSchema),
    })),
  );
}

/** Gemini's OpenAPI types are upper case (`STRING`); the shared argument maker reads JSON Schema's. */
function lowerTypes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(lowerTypes);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    out[key] = key === 'type' && typeof value === 'string' ? value.toLowerCase() : lowerTypes(value);
  }
  return out;
}

function forcing(config: GeminiToolConfig | undefined): ToolForcing {
  const calling = config?.functionCallingConfig;
  if (calling?.mode === 'NONE') return { kind: 'none' };
  if (calling?.mode !== 'ANY') return { kind: 'auto' };
  const allowed = calling.allowedFunctionNames ?? [];
  return allowed.length > 0 ? { kind: 'named', name: allowed[0] as string } : { kind: 'any' };
}
