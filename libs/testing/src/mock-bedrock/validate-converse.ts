import { validation, type AwsReply } from './errors.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const TOP_LEVEL = new Set([
  'messages',
  'system',
  'inferenceConfig',
  'toolConfig',
  'guardrailConfig',
  'additionalModelRequestFields',
  'additionalModelResponseFieldPaths',
  'promptVariables',
  'requestMetadata',
  'performanceConfig',
]);
const BLOCK_MEMBERS = new Set([
  'text',
  'image',
  'document',
  'video',
  'toolUse',
  'toolResult',
  'guardContent',
  'cachePoint',
  'reasoningContent',
]);
const IMAGE_FORMATS = new Set(['png', 'jpeg', 'gif', 'webp']);

/**
 * What Bedrock's Converse refuses, in its words (ValidationException 400): messages that do not
 * start with the user or do not alternate, empty content and blank text, blocks that are not a
 * one-member union, tool blocks without a toolConfig, tool calls without their results in the
 * next turn, and inference settings out of range. Null when the request is valid.
 */
export function validateConverse(body: Json): AwsReply | null {
  for (const key of Object.keys(body)) {
    if (!TOP_LEVEL.has(key))
      return validation(`Unknown parameter in input: "${key}", must be one of: ${[...TOP_LEVEL].join(', ')}`);
  }
  const messages = body.messages;
  if (!Array.isArray(messages))
    return validation(
      "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null",
    );
  if (!isObject(messages[0]) || messages[0].role !== 'user')
    return validation(
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    );
  let toolBlocks = false;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as unknown;
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant'))
      return validation(
        `1 validation error detected: Value at 'messages.${i + 1}.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]`,
      );
    if (i > 0 && (messages[i - 1] as Json).role === m.role)
      return validation(
        'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
      );
    if (!Array.isArray(m.content) || m.content.length === 0)
      return validation(
        `The content field in the Message object at messages.${i} is empty. Add a ContentBlock object to the content field and try again.`,
      );
    for (let j = 0; j < m.content.length; j++) {
      const problem = blockProblem(m.content[j], `messages.${i}.content.${j}`);
      if (problem) return problem;
      const b = m.content[j] as Json;
      if (b.toolUse !== undefined || b.toolResult !== undefined) toolBlocks = true;
    }
    const pending = m.role === 'assistant' ? toolUseIds(m.content as Json[]) : [];
    if (pending.length > 0) {
      const next = messages[i + 1] as Json | undefined;
      const answered = new Set(
        isObject(next) && Array.isArray(next.content) ? toolResultIds(next.content as Json[]) : [],
      );
      const missing = pending.filter((id) => !answered.has(id));
      if (next !== undefined && missing.length > 0)
        return validation(
          `Expected toolResult blocks at messages.${i + 1}.content for the following Ids: ${missing.join(', ')}`,
        );
    }
  }
  if (body.system !== undefined) {
    if (!Array.isArray(body.system))
      return validation('The system field must be a list of SystemContentBlock objects.');
    for (let j = 0; j < body.system.length; j++) {
      const s = body.system[j] as unknown;
      if (
        !isObject(s) ||
        (typeof s.text !== 'string' && s.cachePoint === undefined && s.guardContent === undefined)
      )
        return validation(
          `The system field at system.${j} must hold a text, cachePoint or guardContent member.`,
        );
      if (typeof s.text === 'string' && s.text.trim() === '')
        return validation(
          `The text field in the SystemContentBlock object at system.${j} is blank. Add text to the text field, and try again.`,
        );
    }
  }
  const tools = body.toolConfig;
  if (toolBlocks && !isObject(tools))
    return validation(
      'The toolConfig field must be defined when using toolUse and toolResult content blocks.',
    );
  if (tools !== undefined) {
    const problem = toolConfigProblem(tools);
    if (problem) return problem;
  }
  return inferenceProblem(body.inferenceConfig);
}

function blockProblem(block: unknown, at: string): AwsReply | null {
  if (!isObject(block)) return validation(`The ContentBlock object at ${at} must be an object.`);
  const members = Object.keys(block);
  if (members.length !== 1 || !BLOCK_MEMBERS.has(members[0]!))
    return validation(
      `The ContentBlock object at ${at} must set exactly one of: ${[...BLOCK_MEMBERS].join(', ')}.`,
    );
  if (typeof block.text === 'string' && block.text.trim() === '')
    return validation(
      `The text field in the ContentBlock object at ${at} is blank. Add text to the text field, and try again.`,
    );
  if (block.image !== undefined) {
    const image = block.image as Json;
    if (!isObject(image) || !IMAGE_FORMATS.has(String(image.format)))
      return validation(
        `1 validation error detected: Value at '${at}.image.format' failed to satisfy constraint: Member must satisfy enum value set: [png, jpeg, gif, webp]`,
      );
    const bytes = isObject(image.source) ? image.source.bytes : undefined;
    if (typeof bytes !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(bytes) || bytes.length === 0)
      return validation(`The image bytes at ${at}.image.source.bytes are not valid base64.`);
  }
  if (block.toolUse !== undefined) {
    const use = block.toolUse as Json;
    if (
      !isObject(use) ||
      typeof use.toolUseId !== 'string' ||
      typeof use.name !== 'string' ||
      !isObject(use.input)
    )
      return validation(`The toolUse at ${at} needs a toolUseId, a name and an input object.`);
  }
  if (block.toolResult !== undefined) {
    const result = block.toolResult as Json;
    if (!isObject(result) || typeof result.toolUseId !== 'string' || !Array.isArray(result.content))
      return validation(`The toolResult at ${at} needs a toolUseId and a content list.`);
  }
  return null;
}

function toolConfigProblem(tools: unknown): AwsReply | null {
  if (!isObject(tools) || !Array.isArray(tools.tools) || tools.tools.length === 0)
    return validation(
      "1 validation error detected: Value '[]' at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1",
    );
  for (let i = 0; i < tools.tools.length; i++) {
    const spec = isObject(tools.tools[i]) ? (tools.tools[i] as Json).toolSpec : undefined;
    if (!isObject(spec) || typeof spec.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name))
      return validation(
        `1 validation error detected: Value at 'toolConfig.tools.${i + 1}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`,
      );
    if (!isObject(spec.inputSchema) || !isObject(spec.inputSchema.json))
      return validation(`The toolSpec at toolConfig.tools.${i} needs an inputSchema with a json member.`);
  }
  const choice = tools.toolChoice;
  if (
    choice !== undefined &&
    (!isObject(choice) || !['auto', 'any', 'tool'].includes(Object.keys(choice)[0] ?? ''))
  )
    return validation('The toolChoice field must set exactly one of: auto, any, tool.');
  return null;
}

function inferenceProblem(config: unknown): AwsReply | null {
  if (config === undefined) return null;
  if (!isObject(config)) return validation('The inferenceConfig field must be an object.');
  const { maxTokens, temperature, topP } = config;
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1))
    return validation(
      "1 validation error detected: Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
    );
  for (const [name, v] of [
    ['temperature', temperature],
    ['topP', topP],
  ] as const) {
    if (v !== undefined && (typeof v !== 'number' || v < 0 || v > 1))
      return validation(
        `1 validation error detected: Value '${String(v)}' at 'inferenceConfig.${name}' failed to satisfy constraint: Member must have value less than or equal to 1`,
      );
  }
  return null;
}

const toolUseIds = (content: Json[]): string[] =>
  content.flatMap((b) => (isObject(b) && isObject(b.toolUse) ? [String(b.toolUse.toolUseId)] : []));
const toolResultIds = (content: Json[]): string[] =>
  content.flatMap((b) => (isObject(b) && isObject(b.toolResult) ? [String(b.toolResult.toolUseId)] : []));
