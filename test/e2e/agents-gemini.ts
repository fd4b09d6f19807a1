import {
  type Content,
  type GenerateContentParameters,
  type GenerateContentResponse,
  GoogleGenAI,
  type Part,
  type GenerateContentResponseUsageMetadata,
} from '@google/genai';
import { expect } from '@jest/globals';
import { mockThoughtSignature } from '#libs/testing';

/**
 * Gemini CLI's recorded requests (test/fixtures/agents/gemini-cli.*.json) replayed with the SDK
 * the CLI uses (`@google/genai`), and its turns continued as the CLI continues them.
 */

export interface GeminiFixture {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Record<string, unknown>;
}

/** `/v1beta/models/{model}:{method}`: Gemini CLI's paths. */
const GEMINI_PATH = /^\/v1beta\/models\/[^:/]+:(generateContent|streamGenerateContent|countTokens)(\?|$)/;

export const isGemini = (fx: { readonly path: string }): boolean => GEMINI_PATH.test(fx.path);
export const methodOf = (fx: { readonly path: string }): string => GEMINI_PATH.exec(fx.path)![1]!;

/** What the SDK assembled: every part of the answer in order, how it finished, its usage. */
export interface GeminiAnswer {
  readonly parts: Part[];
  readonly finishReason: string | undefined;
  readonly usage: GenerateContentResponseUsageMetadata | undefined;
  /** countTokens answers only. */
  readonly totalTokens?: number;
}

/**
 * The recorded body as SDK parameters: the SDK writes `config`'s generation fields into
 * `generationConfig` and the rest (systemInstruction, tools, toolConfig) beside `contents`, as
 * the CLI's own SDK did, so the wire body is the recorded one.
 */
function paramsOf(body: Record<string, unknown>, model: string): GenerateContentParameters {
  const { contents, generationConfig, ...rest } = body;
  return {
    model,
    contents: contents as Content[],
    config: { ...rest, ...(generationConfig as object) },
  };
}

/**
 * The SDK merges its own headers with these by exact name: the CLI's user agent and content type
 * go in the SDK's spelling, so they replace its own rather than join them (as in the CLI).
 */
const SDK_SPELLING: Readonly<Record<string, string>> = {
  'user-agent': 'User-Agent',
  'content-type': 'Content-Type',
};
const sdkSpelled = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [SDK_SPELLING[k.toLowerCase()] ?? k, v]));

export async function replayGemini(
  fx: GeminiFixture,
  model: string,
  client: { apiKey: string; baseUrl: string; headers: Record<string, string>; fetch: typeof fetch },
): Promise<GeminiAnswer> {
  const ai = new GoogleGenAI({
    apiKey: client.apiKey,
    // Jest's VM realm hides Node's undici dispatcher from the SDK: a fetch of its own skips it.
    httpOptions: {
      baseUrl: client.baseUrl,
      apiVersion: 'v1beta',
      headers: sdkSpelled(client.headers),
      fetch: client.fetch,
    },
  });
  const method = methodOf(fx);
  if (method === 'countTokens') {
    const counted = await ai.models.countTokens({ model, contents: fx.body.contents as Content[] });
    return { parts: [], finishReason: undefined, usage: undefined, totalTokens: counted.totalTokens! };
  }
  const params = paramsOf(fx.body, model);
  if (method === 'generateContent') return answerOf([await ai.models.generateContent(params)]);
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);
  return answerOf(chunks);
}

/** The chunks joined as Gemini CLI joins them: the parts in order, the last finish reason and usage. */
function answerOf(chunks: readonly GenerateContentResponse[]): GeminiAnswer {
  const candidates = chunks.map((c) => c.candidates?.[0]);
  return {
    parts: candidates.flatMap((c) => c?.content?.parts ?? []),
    finishReason: candidates.findLast((c) => c?.finishReason)?.finishReason,
    usage: chunks.findLast((c) => c.usageMetadata)?.usageMetadata,
  };
}

/** The answer has what the CLI reads next: text or function calls, and the usage of a turn. */
export function assertGeminiUsable(fx: GeminiFixture, answer: GeminiAnswer): void {
  if (methodOf(fx) === 'countTokens') {
    expect(answer.totalTokens).toBeGreaterThan(0);
    return;
  }
  expect(answer.finishReason).toBe('STOP');
  expect(answer.parts.some((p) => (p.text && !p.thought) || p.functionCall)).toBe(true);
  expect(answer.usage?.candidatesTokenCount).toBeGreaterThan(0);
}

export const geminiCallsOf = (answer: GeminiAnswer): number =>
  answer.parts.filter((p) => p.functionCall).length;

/**
 * The recording server's thought signatures are its own, which Gemini 3 refuses as corrupted:
 * re-signed as if the mock had answered those turns (the CLI's dummy values stay as sent).
 */
export function signedByMock(fx: GeminiFixture): GeminiFixture {
  const contents = (fx.body.contents as Content[]).map((c) => ({
    ...c,
    parts: (c.parts ?? []).map((p) =>
      typeof p.thoughtSignature === 'string' && !p.thoughtSignature.includes('_')
        ? { ...p, thoughtSignature: mockThoughtSignature(p as Parameters<typeof mockThoughtSignature>[0]) }
        : p,
    ),
  }));
  return { ...fx, body: { ...fx.body, contents } };
}

/** The last user turn also asks for the weather (beside a function response, as the CLI adds an image). */
export function askGeminiForTool(fx: GeminiFixture): GeminiFixture {
  const contents = structuredClone(fx.body.contents as Content[]);
  const last = contents.findLast((c) => c.role === 'user')!;
  last.parts = [...(last.parts ?? []), { text: 'What is the weather?' }];
  return { ...fx, body: { ...fx.body, contents } };
}

/**
 * The next turn as the CLI builds it: the model's parts sent back as received, minus thoughts
 * (signatures included), then one functionResponse per call, with the call's id.
 */
export function nextGeminiTurn(fx: GeminiFixture, answer: GeminiAnswer): GeminiFixture {
  const model: Content = { role: 'model', parts: answer.parts.filter((p) => !p.thought) };
  const responses: Content = {
    role: 'user',
    parts: answer.parts
      .filter((p) => p.functionCall)
      .map((p) => ({
        functionResponse: {
          id: p.functionCall!.id,
          name: p.functionCall!.name,
          response: { output: 'sunny, 21 C' },
        },
      })),
  };
  return { ...fx, body: { ...fx.body, contents: [...(fx.body.contents as Content[]), model, responses] } };
}

const SIGNATURE = 'dropped contents[].parts[].thoughtSignature (1 parts)';
const TOP_K = 'dropped generationConfig.topK';
const CACHED = 'added cache_control breakpoints (tools, system, messages)';

/**
 * What translating Gemini CLI's requests records, for OpenAI-format providers and Anthropic (a
 * Gemini provider takes them as they are: nothing). Every turn drops the CLI's `topK: 64`; turn
 * 2 drops the signature on its function call (the CLI's dummy one in `.5`); Anthropic gets its
 * prompt marked for caching, and takes the web search as its own search tool.
 */
const GEMINI_CLI_ADJUSTED: Readonly<Record<string, { openai: string[]; anthropic: string[] }>> = {
  'gemini-cli.generate-content.1.json': { openai: [TOP_K], anthropic: [TOP_K, CACHED] },
  'gemini-cli.generate-content.2.json': { openai: [SIGNATURE, TOP_K], anthropic: [SIGNATURE, TOP_K, CACHED] },
  'gemini-cli.generate-content.3.json': { openai: [TOP_K], anthropic: [TOP_K, CACHED] },
  'gemini-cli.generate-content.4.json': { openai: [SIGNATURE, TOP_K], anthropic: [SIGNATURE, TOP_K, CACHED] },
  'gemini-cli.generate-content.5.json': { openai: [SIGNATURE, TOP_K], anthropic: [SIGNATURE, TOP_K, CACHED] },
  'gemini-cli.routing.1.json': {
    openai: [TOP_K],
    anthropic: [TOP_K, 'added cache_control breakpoints (system, messages)'],
  },
  'gemini-cli.web-search.1.json': {
    openai: ['dropped tools[0] googleSearch'],
    anthropic: ['carried tools[0] googleSearch as web_search_20250305', CACHED],
  },
  // Counted upstream or here: never translated.
  'gemini-cli.count-tokens.1.json': { openai: [], anthropic: [] },
  'gemini-cli.count-tokens.2.json': { openai: [], anthropic: [] },
};

/** The adjustments of a recorded Gemini CLI request sent to a provider of `type`. */
export function geminiCliAdjusted(file: string, type: string): string[] {
  if (type === 'gemini') return [];
  return GEMINI_CLI_ADJUSTED[file]![type === 'anthropic' ? 'anthropic' : 'openai'];
}
