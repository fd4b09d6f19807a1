/**
 * Google's Gemini API (generativelanguage.googleapis.com, v1beta) as it travels on the wire, in
 * its JSON (camelCase) names: the shapes of the REST reference for `models.generateContent`,
 * `models.streamGenerateContent` and `models.countTokens`. Only what the gateway reads or writes
 * is typed; bodies keep every other field.
 */

export type GeminiRole = 'user' | 'model';

export interface GeminiBlob {
  readonly mimeType: string;
  /** base64 */
  readonly data: string;
}

export interface GeminiFunctionCall {
  readonly id?: string;
  readonly name: string;
  readonly args?: Readonly<Record<string, unknown>>;
}

export interface GeminiFunctionResponse {
  readonly id?: string;
  readonly name: string;
  readonly response: Readonly<Record<string, unknown>>;
}

/** Exactly one of the data fields is set; `thought` and `thoughtSignature` ride along. */
export interface GeminiPart {
  readonly text?: string;
  /** The part is the model's thinking (a summary, when `includeThoughts` is on). */
  readonly thought?: boolean;
  /** Opaque; must come back on the same part in the next turn for thinking models' function calls. */
  readonly thoughtSignature?: string;
  readonly inlineData?: GeminiBlob;
  readonly fileData?: { readonly mimeType?: string; readonly fileUri: string };
  readonly functionCall?: GeminiFunctionCall;
  readonly functionResponse?: GeminiFunctionResponse;
  readonly executableCode?: { readonly language: string; readonly code: string };
  readonly codeExecutionResult?: { readonly outcome: string; readonly output?: string };
}

export interface GeminiContent {
  readonly role?: GeminiRole;
  readonly parts: readonly GeminiPart[];
}

export interface GeminiFunctionDeclaration {
  readonly name: string;
  readonly description?: string;
  /** OpenAPI-subset schema (types in upper case are accepted as well as lower case). */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** Full JSON Schema, exclusive with `parameters`. */
  readonly parametersJsonSchema?: unknown;
}

export interface GeminiTool {
  readonly functionDeclarations?: readonly GeminiFunctionDeclaration[];
  readonly googleSearch?: Readonly<Record<string, unknown>>;
  readonly codeExecution?: Readonly<Record<string, unknown>>;
  readonly urlContext?: Readonly<Record<string, unknown>>;
}

export interface GeminiToolConfig {
  readonly functionCallingConfig?: {
    readonly mode?: 'AUTO' | 'ANY' | 'NONE' | 'VALIDATED' | 'MODE_UNSPECIFIED';
    readonly allowedFunctionNames?: readonly string[];
  };
}

export interface GeminiThinkingConfig {
  readonly includeThoughts?: boolean;
  /** Tokens; 0 turns thinking off where the model allows, -1 lets the model decide. */
  readonly thinkingBudget?: number;
  readonly thinkingLevel?: 'LOW' | 'MEDIUM' | 'HIGH' | 'MINIMAL' | 'THINKING_LEVEL_UNSPECIFIED';
}

export interface GeminiGenerationConfig {
  readonly stopSequences?: readonly string[];
  readonly responseMimeType?: string;
  readonly responseSchema?: Readonly<Record<string, unknown>>;
  readonly responseJsonSchema?: unknown;
  readonly candidateCount?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
  readonly seed?: number;
  readonly presencePenalty?: number;
  readonly frequencyPenalty?: number;
  readonly thinkingConfig?: GeminiThinkingConfig;
}

/** The body of `models/{model}:generateContent` and `:streamGenerateContent` (the model is in the path). */
export interface GeminiRequest {
  readonly contents: readonly GeminiContent[];
  readonly systemInstruction?: GeminiContent;
  readonly tools?: readonly GeminiTool[];
  readonly toolConfig?: GeminiToolConfig;
  readonly generationConfig?: GeminiGenerationConfig;
  readonly safetySettings?: readonly unknown[];
  readonly cachedContent?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

export type GeminiFinishReason =
  | 'FINISH_REASON_UNSPECIFIED'
  | 'STOP'
  | 'MAX_TOKENS'
  | 'SAFETY'
  | 'RECITATION'
  | 'LANGUAGE'
  | 'OTHER'
  | 'BLOCKLIST'
  | 'PROHIBITED_CONTENT'
  | 'SPII'
  | 'MALFORMED_FUNCTION_CALL'
  | 'IMAGE_SAFETY'
  | 'UNEXPECTED_TOOL_CALL'
  | 'TOO_MANY_TOOL_CALLS';

export interface GeminiCandidate {
  readonly content?: GeminiContent;
  readonly finishReason?: GeminiFinishReason;
  readonly index?: number;
  readonly safetyRatings?: readonly unknown[];
}

export interface GeminiModalityCount {
  readonly modality: string;
  readonly tokenCount: number;
}

/**
 * `promptTokenCount` includes `cachedContentTokenCount`; `candidatesTokenCount` excludes
 * `thoughtsTokenCount`, which is billed as output; `toolUsePromptTokenCount` is prompt billed on
 * top (a search's results read back in).
 */
export interface GeminiUsageMetadata {
  readonly promptTokenCount?: number;
  readonly cachedContentTokenCount?: number;
  readonly candidatesTokenCount?: number;
  readonly toolUsePromptTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly totalTokenCount?: number;
  readonly promptTokensDetails?: readonly GeminiModalityCount[];
  readonly cacheTokensDetails?: readonly GeminiModalityCount[];
  readonly candidatesTokensDetails?: readonly GeminiModalityCount[];
}

/** A whole answer, and also each event of a stream (`alt=sse`: one such object per `data:`, no end marker). */
export interface GeminiResponse {
  readonly candidates?: readonly GeminiCandidate[];
  readonly promptFeedback?: { readonly blockReason?: string; readonly safetyRatings?: readonly unknown[] };
  readonly usageMetadata?: GeminiUsageMetadata;
  readonly modelVersion?: string;
  readonly responseId?: string;
}

/** `models/{model}:countTokens`: either `contents`, or a whole `generateContentRequest` (with `model`). */
export interface GeminiCountTokensRequest {
  readonly contents?: readonly GeminiContent[];
  readonly generateContentRequest?: GeminiRequest & { readonly model: string };
}

export interface GeminiCountTokensResponse {
  readonly totalTokens: number;
  readonly cachedContentTokenCount?: number;
  readonly promptTokensDetails?: readonly GeminiModalityCount[];
}

/** Google's error body: `status` is the google.rpc.Code name (`INVALID_ARGUMENT`, `NOT_FOUND` ...). */
export interface GeminiError {
  readonly error: {
    readonly code: number;
    readonly message: string;
    readonly status: string;
    readonly details?: readonly unknown[];
  };
}

/**
 * Relative to the base URL as its SDK takes it (`https://generativelanguage.googleapis.com`, the
 * API version apart): the gateway speaks v1beta, where thinking and function call ids are.
 */
export const geminiPaths = {
  generate: (model: string) => `/v1beta/models/${model}:generateContent`,
  stream: (model: string) => `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
  countTokens: (model: string) => `/v1beta/models/${model}:countTokens`,
  models: '/v1beta/models',
} as const;
