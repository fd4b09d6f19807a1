/**
 * The request messages of `google.ai.generativelanguage.v1beta` (generateContent, countTokens) as
 * the parser needs them: every field Google's proto has, so what the API takes passes and any other
 * name is refused as it is there. Rarely used tool and config sub-messages are free-form (`struct`):
 * the gateway does not build them, and a wrong guess at their fields would refuse valid requests.
 */
import type { Field, FieldType, MessageType } from './gemini-proto.js';

const PKG = 'type.googleapis.com/google.ai.generativelanguage.v1beta';

const of = (kind: 'string' | 'bool' | 'bytes' | 'struct' | 'value' | 'duration'): Field => ({
  type: { kind },
});
const num = (kind: 'int32' | 'int64' | 'float' | 'double'): Field => ({ type: { kind } });
const str = of('string');
const bool = of('bool');
const struct = of('struct');
const value = of('value');
const int32 = num('int32');
const msg = (message: () => MessageType, oneof?: string): Field => ({
  type: { kind: 'message', message },
  ...(oneof && { oneof }),
});
const list = (field: Field): Field => ({ ...field, repeated: true });
const enumOf = (name: string, values: readonly string[]): Field => {
  const type: FieldType = { kind: 'enum', name: `${PKG}.${name}`, values };
  return { type };
};
const message = (name: string, fields: Record<string, Field>): MessageType => ({
  name: `${PKG}.${name}`,
  fields,
});

const Blob = message('Blob', { mimeType: str, data: of('bytes') });
const FileData = message('FileData', { mimeType: str, fileUri: str });
const FunctionCall = message('FunctionCall', { id: str, name: str, args: struct });
const FunctionResponsePart = message('FunctionResponsePart', { inlineData: msg(() => Blob) });
const FunctionResponse = message('FunctionResponse', {
  id: str,
  name: str,
  response: struct,
  parts: list(msg(() => FunctionResponsePart)),
  willContinue: bool,
  scheduling: enumOf('FunctionResponse.Scheduling', [
    'SCHEDULING_UNSPECIFIED',
    'SILENT',
    'WHEN_IDLE',
    'INTERRUPT',
  ]),
});
const ExecutableCode = message('ExecutableCode', {
  language: enumOf('ExecutableCode.Language', ['LANGUAGE_UNSPECIFIED', 'PYTHON']),
  code: str,
});
const CodeExecutionResult = message('CodeExecutionResult', {
  outcome: enumOf('CodeExecutionResult.Outcome', [
    'OUTCOME_UNSPECIFIED',
    'OUTCOME_OK',
    'OUTCOME_FAILED',
    'OUTCOME_DEADLINE_EXCEEDED',
  ]),
  output: str,
});
const VideoMetadata = message('VideoMetadata', {
  startOffset: of('duration'),
  endOffset: of('duration'),
  fps: num('double'),
});

/** A part: exactly one member of `data`; thought flags and metadata ride along. */
export const Part = message('Part', {
  text: { ...str, oneof: 'data' },
  inlineData: msg(() => Blob, 'data'),
  functionCall: msg(() => FunctionCall, 'data'),
  functionResponse: msg(() => FunctionResponse, 'data'),
  fileData: msg(() => FileData, 'data'),
  executableCode: msg(() => ExecutableCode, 'data'),
  codeExecutionResult: msg(() => CodeExecutionResult, 'data'),
  videoMetadata: msg(() => VideoMetadata),
  thought: bool,
  thoughtSignature: of('bytes'),
  partMetadata: struct,
  mediaResolution: struct,
});
export const DATA_FIELDS = Object.keys(Part.fields).filter((k) => Part.fields[k]?.oneof === 'data');

const Content = message('Content', { role: str, parts: list(msg(() => Part)) });

const TYPES = ['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL'];
/** The OpenAPI subset of `parameters` and `responseSchema` (no additionalProperties, $ref, const...). */
export const Schema: MessageType = message('Schema', {
  type: enumOf('Type', TYPES),
  format: str,
  title: str,
  description: str,
  nullable: bool,
  enum: list(str),
  maxItems: num('int64'),
  minItems: num('int64'),
  properties: { type: { kind: 'map', message: () => Schema } },
  required: list(str),
  minProperties: num('int64'),
  maxProperties: num('int64'),
  minLength: num('int64'),
  maxLength: num('int64'),
  pattern: str,
  example: value,
  anyOf: list(msg(() => Schema)),
  propertyOrdering: list(str),
  default: value,
  items: msg(() => Schema),
  minimum: num('double'),
  maximum: num('double'),
});

const FunctionDeclaration = message('FunctionDeclaration', {
  name: str,
  description: str,
  behavior: enumOf('FunctionDeclaration.Behavior', ['UNSPECIFIED', 'BLOCKING', 'NON_BLOCKING']),
  parameters: msg(() => Schema),
  parametersJsonSchema: value,
  response: msg(() => Schema),
  responseJsonSchema: value,
});
const CodeExecution = message('CodeExecution', {});
const UrlContext = message('UrlContext', {});
const GoogleSearch = message('Tool.GoogleSearch', { timeRangeFilter: struct });
const Tool = message('Tool', {
  functionDeclarations: list(msg(() => FunctionDeclaration)),
  googleSearchRetrieval: struct,
  codeExecution: msg(() => CodeExecution),
  googleSearch: msg(() => GoogleSearch),
  urlContext: msg(() => UrlContext),
  computerUse: struct,
  fileSearch: struct,
  googleMaps: struct,
});
const FunctionCallingConfig = message('FunctionCallingConfig', {
  mode: enumOf('FunctionCallingConfig.Mode', ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']),
  allowedFunctionNames: list(str),
});
const ToolConfig = message('ToolConfig', {
  functionCallingConfig: msg(() => FunctionCallingConfig),
  retrievalConfig: struct,
  includeServerSideToolInvocations: bool,
});
const HARM_CATEGORIES = [
  'HARM_CATEGORY_UNSPECIFIED',
  'HARM_CATEGORY_DEROGATORY',
  'HARM_CATEGORY_TOXICITY',
  'HARM_CATEGORY_VIOLENCE',
  'HARM_CATEGORY_SEXUAL',
  'HARM_CATEGORY_MEDICAL',
  'HARM_CATEGORY_DANGEROUS',
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
  'HARM_CATEGORY_CIVIC_INTEGRITY',
];
const SafetySetting = message('SafetySetting', {
  category: enumOf('HarmCategory', HARM_CATEGORIES),
  threshold: enumOf('SafetySetting.HarmBlockThreshold', [
    'HARM_BLOCK_THRESHOLD_UNSPECIFIED',
    'BLOCK_LOW_AND_ABOVE',
    'BLOCK_MEDIUM_AND_ABOVE',
    'BLOCK_ONLY_HIGH',
    'BLOCK_NONE',
    'OFF',
  ]),
});
const ThinkingConfig = message('ThinkingConfig', {
  includeThoughts: bool,
  thinkingBudget: int32,
  thinkingLevel: enumOf('ThinkingConfig.ThinkingLevel', [
    'THINKING_LEVEL_UNSPECIFIED',
    'MINIMAL',
    'LOW',
    'MEDIUM',
    'HIGH',
  ]),
});
const GenerationConfig = message('GenerationConfig', {
  candidateCount: int32,
  stopSequences: list(str),
  maxOutputTokens: int32,
  temperature: num('float'),
  topP: num('float'),
  topK: int32,
  seed: int32,
  presencePenalty: num('float'),
  frequencyPenalty: num('float'),
  responseLogprobs: bool,
  logprobs: int32,
  enableEnhancedCivicAnswers: bool,
  responseMimeType: str,
  responseSchema: msg(() => Schema),
  responseJsonSchema: value,
  responseModalities: list(
    enumOf('GenerationConfig.Modality', ['MODALITY_UNSPECIFIED', 'TEXT', 'IMAGE', 'AUDIO']),
  ),
  speechConfig: struct,
  imageConfig: struct,
  thinkingConfig: msg(() => ThinkingConfig),
  mediaResolution: enumOf('GenerationConfig.MediaResolution', [
    'MEDIA_RESOLUTION_UNSPECIFIED',
    'MEDIA_RESOLUTION_LOW',
    'MEDIA_RESOLUTION_MEDIUM',
    'MEDIA_RESOLUTION_HIGH',
  ]),
});

/** No `labels`: that field is Vertex AI's; the Gemini API refuses it as an unknown name. */
export const GenerateContentRequest = message('GenerateContentRequest', {
  model: str,
  contents: list(msg(() => Content)),
  systemInstruction: msg(() => Content),
  tools: list(msg(() => Tool)),
  toolConfig: msg(() => ToolConfig),
  safetySettings: list(msg(() => SafetySetting)),
  generationConfig: msg(() => GenerationConfig),
  cachedContent: str,
});

export const CountTokensRequest = message('CountTokensRequest', {
  contents: list(msg(() => Content)),
  generateContentRequest: msg(() => GenerateContentRequest),
});
