import { geminiBadPayload, geminiInvalid } from './gemini-errors.js';
import { embed } from './openai-embeddings.js';
import { isObject } from './params.js';
import { tokensOf } from './text.js';
import type { EndpointHandler, JsonObject, JsonReply } from './types.js';

/**
 * Vertex AI's `predict` for its text embedding models, as Google documents and answers it:
 * `{instances: [{content, task_type?, title?}], parameters?: {autoTruncate?, outputDimensionality?}}`
 * -> `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}],
 * metadata: {billableCharacterCount}}`. Limits: instances per call (gemini-embedding models one,
 * the others 250), 20,000 input tokens per call, 2,048 tokens per text (cut when `autoTruncate`
 * is true, Vertex's default, else refused), the model's range of `outputDimensionality`.
 * Messages are Vertex's, as quoted in public bug reports.
 */

interface EmbeddingModelSpec {
  readonly perCall: number;
  readonly dimensions: number;
  readonly minDimensions: number;
}

const GEMINI_EMBEDDING: EmbeddingModelSpec = { perCall: 1, dimensions: 3072, minDimensions: 128 };
const TEXT_EMBEDDING: EmbeddingModelSpec = { perCall: 250, dimensions: 768, minDimensions: 1 };

export const specOf = (model: string): EmbeddingModelSpec =>
  model.startsWith('gemini-embedding-') ? GEMINI_EMBEDDING : TEXT_EMBEDDING;

const MAX_CALL_TOKENS = 20_000;
const MAX_TEXT_TOKENS = 2048;
const TOP_LEVEL = new Set(['instances', 'parameters']);
const INSTANCE_FIELDS = new Set(['content', 'task_type', 'title']);
const PARAMETERS = new Set(['autoTruncate', 'outputDimensionality']);
const TASK_TYPES = new Set([
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
]);

const unknownName = (name: string): JsonReply =>
  geminiBadPayload([
    { field: name, description: `Invalid JSON payload received. Unknown name "${name}": Cannot find field.` },
  ]);

/** What the mock's Vertex answers a `predict` body of one of its embedding models (its checks first). */
export function vertexPredictReply(model: string, body: JsonObject): JsonReply {
  return validate(model, body) ?? answer(model, body);
}

/** The handler of `{model}:predict` for one served embedding model. */
export function predictEmbeddings(model: string): EndpointHandler {
  return ({ body }) => vertexPredictReply(model, body);
}

interface Parameters {
  readonly autoTruncate: boolean;
  readonly dimensions: number;
}

function validate(model: string, body: JsonObject): JsonReply | null {
  for (const key of Object.keys(body)) if (!TOP_LEVEL.has(key)) return unknownName(key);
  const spec = specOf(model);
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length === 0)
    return geminiInvalid('Invalid request: instances must be a non-empty list.');
  if (instances.length > spec.perCall)
    return geminiInvalid(
      `Unable to submit request because it has a batchSize value of ${instances.length} but the supported range is from 1 (inclusive) to ${spec.perCall + 1} (exclusive). Update the value and try again.`,
    );
  for (const [i, instance] of instances.entries()) {
    const refused = instanceError(instance, i);
    if (refused) return refused;
  }
  const refused = parametersError(body.parameters, spec);
  if (refused) return refused;
  const params = parametersOf(body.parameters, spec);
  const tokens = (instances as JsonObject[]).map((x) => tokensOf(x.content as string));
  const over = tokens.find((t) => t > MAX_TEXT_TOKENS);
  if (!params.autoTruncate && over !== undefined)
    return geminiInvalid(
      `Unable to submit request because the input token count is ${over} but the model supports up to ${MAX_TEXT_TOKENS}. Reduce the input token count and try again. You can also use the autoTruncate parameter to truncate the input.`,
    );
  const total = tokens.reduce((sum, t) => sum + Math.min(t, MAX_TEXT_TOKENS), 0);
  if (total > MAX_CALL_TOKENS)
    return geminiInvalid(
      `Unable to submit request because the input token count is ${total} but the model supports up to ${MAX_CALL_TOKENS}. Reduce the input token count and try again.`,
    );
  return null;
}

function instanceError(instance: unknown, i: number): JsonReply | null {
  if (!isObject(instance)) return geminiInvalid(`Invalid instance at index ${i}: it must be an object.`);
  for (const key of Object.keys(instance))
    if (!INSTANCE_FIELDS.has(key))
      return geminiInvalid(`Invalid instance at index ${i}: unknown field "${key}".`);
  if (typeof instance.content !== 'string')
    return geminiInvalid(`Invalid instance at index ${i}: "content" must be a string.`);
  if (instance.task_type !== undefined && !TASK_TYPES.has(String(instance.task_type)))
    return geminiInvalid(
      `Invalid instance at index ${i}: unsupported task_type "${String(instance.task_type)}".`,
    );
  if (instance.title !== undefined && instance.task_type !== 'RETRIEVAL_DOCUMENT')
    return geminiInvalid(
      `Invalid instance at index ${i}: a title is only valid with task_type RETRIEVAL_DOCUMENT.`,
    );
  return null;
}

function parametersError(parameters: unknown, spec: EmbeddingModelSpec): JsonReply | null {
  if (parameters === undefined) return null;
  if (!isObject(parameters)) return geminiInvalid('Invalid request: parameters must be an object.');
  for (const key of Object.keys(parameters))
    if (!PARAMETERS.has(key)) return unknownName(`parameters.${key}`);
  if (parameters.autoTruncate !== undefined && typeof parameters.autoTruncate !== 'boolean')
    return geminiInvalid('Invalid request: parameters.autoTruncate must be a boolean.');
  const dims = parameters.outputDimensionality;
  if (dims === undefined) return null;
  if (
    typeof dims !== 'number' ||
    !Number.isInteger(dims) ||
    dims < spec.minDimensions ||
    dims > spec.dimensions
  )
    return geminiInvalid(
      `Value ${String(dims)} for outputDimensionality is not supported: the supported range is from ${spec.minDimensions} to ${spec.dimensions}.`,
    );
  return null;
}

function parametersOf(parameters: unknown, spec: EmbeddingModelSpec): Parameters {
  const p = isObject(parameters) ? parameters : {};
  return {
    autoTruncate: p.autoTruncate !== false,
    dimensions: typeof p.outputDimensionality === 'number' ? p.outputDimensionality : spec.dimensions,
  };
}

/**
 * Deterministic unit vectors of the model's full size, cut to `outputDimensionality` as the
 * model's own are (Matryoshka: the first values, not scaled back to length 1).
 */
function answer(model: string, body: JsonObject): JsonReply {
  const spec = specOf(model);
  const params = parametersOf(body.parameters, spec);
  const instances = body.instances as JsonObject[];
  let billable = 0;
  const predictions = instances.map((instance) => {
    const content = instance.content as string;
    const tokens = tokensOf(content);
    billable += billableCharacters(content);
    return {
      embeddings: {
        statistics: { truncated: tokens > MAX_TEXT_TOKENS, token_count: Math.min(tokens, MAX_TEXT_TOKENS) },
        values: Array.from(embed(content, spec.dimensions).subarray(0, params.dimensions)),
      },
    };
  });
  return { kind: 'json', status: 200, body: { predictions, metadata: { billableCharacterCount: billable } } };
}

/** Google bills these models per character: Unicode code points, white space not counted. */
export function billableCharacters(text: string): number {
  let count = 0;
  for (const ch of text) if (!/\s/.test(ch)) count++;
  return count;
}
