import { messages } from '../mock-provider/anthropic-messages.js';
import { type MockBehaviour } from '../mock-provider/behaviour.js';
import { validateMessagesRequest } from '../mock-provider/validate-anthropic.js';
import { validation, type AwsReply } from './errors.js';
import { chunkFrame } from './frames.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Anthropic's Messages body on Bedrock: these keys are the API's, not the body's. */
const EXTRANEOUS = ['model', 'stream'] as const;

export type InvokeAnswer =
  { kind: 'json'; body: Json } | { kind: 'frames'; frames: Buffer[] } | { kind: 'error'; reply: AwsReply };

/**
 * InvokeModel / InvokeModelWithResponseStream of an Anthropic model: Bedrock checks
 * `anthropic_version` and refuses `model` and `stream` in the body (in its words), then the
 * Messages body is Anthropic's (the mock Anthropic validates and answers it). Streams come as
 * `chunk` frames around Anthropic's events; the last one carries Bedrock's invocation metrics.
 */
export function invokeAnthropic(
  body: Json,
  model: string,
  stream: boolean,
  behaviour: MockBehaviour,
): InvokeAnswer {
  const refused = bedrockChecks(body);
  if (refused) return { kind: 'error', reply: refused };
  const { anthropic_version: _version, anthropic_beta: _beta, ...rest } = body;
  const answer = messages({
    body: { ...rest, model, ...(stream ? { stream: true } : {}) },
    behaviour,
    flavour: 'openai',
    headers: { 'anthropic-version': '2023-06-01' },
    query: new URLSearchParams(),
  });
  if (answer.kind === 'json') {
    if (answer.status >= 400) {
      const error = isObject(answer.body) && isObject(answer.body.error) ? answer.body.error : {};
      return { kind: 'error', reply: validation(String(error.message ?? 'Malformed input request')) };
    }
    return { kind: 'json', body: answer.body as Json };
  }
  const events = answer.writes
    .join('')
    .split('\n\n')
    .flatMap((raw) => {
      const data = raw.split('\n').find((line) => line.startsWith('data: '));
      return data === undefined ? [] : [data.slice(6)];
    });
  const counts = { inputTokenCount: 0, outputTokenCount: 0 };
  return { kind: 'frames', frames: events.map((e, i) => chunkFrame(withMetrics(e, counts), i)) };
}

/** Counts the stream's usage as it goes; the last event gets Bedrock's invocation metrics. */
function withMetrics(event: string, counts: { inputTokenCount: number; outputTokenCount: number }): string {
  const parsed = JSON.parse(event) as Json;
  const usage = isObject(parsed.message) ? parsed.message.usage : parsed.usage;
  if (isObject(usage) && typeof usage.input_tokens === 'number') counts.inputTokenCount = usage.input_tokens;
  if (isObject(usage) && typeof usage.output_tokens === 'number')
    counts.outputTokenCount = usage.output_tokens;
  if (parsed.type !== 'message_stop') return event;
  const metrics = { ...counts, invocationLatency: 42, firstByteLatency: 21 };
  return JSON.stringify({ type: 'message_stop', 'amazon-bedrock-invocationMetrics': metrics });
}

/** Bedrock's own checks of an Anthropic body, before Anthropic's. */
function bedrockChecks(body: Json): AwsReply | null {
  if (body.anthropic_version === undefined) return malformed('required key [anthropic_version] not found');
  if (body.anthropic_version !== 'bedrock-2023-05-31')
    return validation(`Invalid API version: ${String(body.anthropic_version)}`);
  for (const key of EXTRANEOUS) if (key in body) return malformed(`extraneous key [${key}] is not permitted`);
  const betas = body.anthropic_beta;
  if (betas !== undefined) {
    if (!Array.isArray(betas)) return malformed('expected type: JSONArray, found: String');
    if (betas.some((b) => !KNOWN_BETAS.has(String(b)))) return validation('invalid beta flag');
  }
  return null;
}

/** The beta flags Bedrock takes in an Anthropic body (others: "invalid beta flag"). */
const KNOWN_BETAS = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
]);

/**
 * What Bedrock refuses of an InvokeModel body for an Anthropic model (its own checks, then the
 * Messages API's): null when it takes it, else the ValidationException's message.
 */
export function validateInvokeMessages(body: Json): string | null {
  const refused = bedrockChecks(body);
  if (refused) return (JSON.parse(refused.body.toString('utf8')) as { message: string }).message;
  const { anthropic_version: _version, anthropic_beta: _beta, ...rest } = body;
  const invalid = validateMessagesRequest({ ...rest, model: 'anthropic.claude' });
  if (invalid === null) return null;
  const error = isObject(invalid.body) && isObject(invalid.body.error) ? invalid.body.error : {};
  return String(error.message ?? 'invalid');
}

const malformed = (why: string): AwsReply =>
  validation(`Malformed input request: #: ${why}, please reformat your input and try again.`);
