/**
 * What the mock knows of each Gemini model family (limits, thinking rules, Gemini 3's signature
 * check), and `GET /v1beta/models` and `GET /v1beta/models/{model}`. The ids served are
 * `behaviour.geminiModels`; a family is recognised by the id's prefix, so a test may serve any
 * dated or preview variant. Sources: the Gemini API's models and thinking guides.
 */
import { geminiError } from './gemini-errors.js';
import type { EndpointInput, EndpointReply } from './types.js';

export interface ThinkingRules {
  /** thinkingBudget's range when set to a positive number (-1, dynamic, is always accepted). */
  readonly min: number;
  readonly max: number;
  /** Whether `thinkingBudget: 0` turns thinking off (2.5 Pro and Gemini 3 refuse it). */
  readonly canDisable: boolean;
  /** Whether the model thinks when the request says nothing (2.5 Flash-Lite does not). */
  readonly defaultOn: boolean;
  /** Gemini 3's `thinkingLevel` values; null where the model refuses a level. */
  readonly levels: readonly string[] | null;
}

export interface GeminiFamily {
  readonly inputTokenLimit: number;
  readonly outputTokenLimit: number;
  readonly thinking: ThinkingRules | null;
  /** Gemini 3 answers candidateCount > 1 with a 400. */
  readonly multipleCandidates: boolean;
  /** Gemini 3 refuses a current-turn function call without its thought signature. */
  readonly signaturesRequired: boolean;
}

const GEMINI_3 = { inputTokenLimit: 1_048_576, outputTokenLimit: 65_536, multipleCandidates: false };
const GEMINI_25 = { inputTokenLimit: 1_048_576, outputTokenLimit: 65_536, multipleCandidates: true };

const FAMILIES: readonly (readonly [RegExp, GeminiFamily])[] = [
  [
    /^gemini-3(\.\d+)?-flash/,
    {
      ...GEMINI_3,
      thinking: {
        min: 1,
        max: 24_576,
        canDisable: false,
        defaultOn: true,
        levels: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'],
      },
      signaturesRequired: true,
    },
  ],
  [
    /^gemini-3/,
    {
      ...GEMINI_3,
      thinking: { min: 128, max: 32_768, canDisable: false, defaultOn: true, levels: ['LOW', 'HIGH'] },
      signaturesRequired: true,
    },
  ],
  [
    /^gemini-2\.5-pro/,
    {
      ...GEMINI_25,
      thinking: { min: 128, max: 32_768, canDisable: false, defaultOn: true, levels: null },
      signaturesRequired: false,
    },
  ],
  [
    /^gemini-2\.5-flash-lite/,
    {
      ...GEMINI_25,
      thinking: { min: 512, max: 24_576, canDisable: true, defaultOn: false, levels: null },
      signaturesRequired: false,
    },
  ],
  [
    /^gemini-2\.5-flash/,
    {
      ...GEMINI_25,
      thinking: { min: 1, max: 24_576, canDisable: true, defaultOn: true, levels: null },
      signaturesRequired: false,
    },
  ],
];

/** Gemini 2.0 and older (and any other id): no thinking, 8k output. */
const OLDER: GeminiFamily = {
  inputTokenLimit: 1_048_576,
  outputTokenLimit: 8_192,
  thinking: null,
  multipleCandidates: true,
  signaturesRequired: false,
};

export function familyOf(model: string): GeminiFamily {
  return FAMILIES.find(([prefix]) => prefix.test(model))?.[1] ?? OLDER;
}

/** `models/x` or `x` to `x`. */
export const modelId = (name: string): string => (name.startsWith('models/') ? name.slice(7) : name);

/** Google's 404 for a model it does not serve, naming the method that was called. */
export function modelNotFound(model: string, method: string): EndpointReply {
  return geminiError(
    404,
    `models/${model} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`,
  );
}

const METHODS = ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'];

function displayName(id: string): string {
  return id
    .split('-')
    .map((w) => (w === '' ? w : `${(w[0] as string).toUpperCase()}${w.slice(1)}`))
    .join(' ');
}

/** A Model resource, shaped as Google lists it. */
function modelResource(id: string): object {
  const family = familyOf(id);
  const name = displayName(id);
  return {
    name: `models/${id}`,
    version: '001',
    displayName: name,
    description: `${name} (mock)`,
    inputTokenLimit: family.inputTokenLimit,
    outputTokenLimit: family.outputTokenLimit,
    supportedGenerationMethods: METHODS,
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    ...(family.thinking && { thinking: true }),
  };
}

const DEFAULT_PAGE = 50;
const MAX_PAGE = 1000;

/** `GET /v1beta/models`, paged by `pageSize` and the opaque `pageToken` it hands out. */
export function listGeminiModels({ behaviour, query }: EndpointInput): EndpointReply {
  const ids = behaviour.geminiModels;
  const size = Math.min(Number(query.get('pageSize')) || DEFAULT_PAGE, MAX_PAGE);
  const token = query.get('pageToken');
  const start = token ? Number(Buffer.from(token, 'base64url').toString()) || 0 : 0;
  const page = ids.slice(start, start + size);
  const next = start + size < ids.length ? Buffer.from(String(start + size)).toString('base64url') : null;
  return {
    kind: 'json',
    status: 200,
    body: { models: page.map(modelResource), ...(next && { nextPageToken: next }) },
  };
}

/** `GET /v1beta/models/{model}`; an unknown model gets Google's generic NOT_FOUND. */
export function getGeminiModel(model: string, { behaviour }: EndpointInput): EndpointReply {
  const id = modelId(model);
  return behaviour.geminiModels.includes(id)
    ? { kind: 'json', status: 200, body: modelResource(id) }
    : geminiError(404, 'Requested entity was not found.');
}
