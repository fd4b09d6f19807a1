import type { IncomingHttpHeaders } from 'node:http';
import { verifyJwt, COGNITIVE_SERVICES_AUDIENCE } from '../mock-entra/jwt.js';
import { textOf } from './text.js';
import type { EndpointReply, JsonObject, JsonReply } from './types.js';

/** What the mock's Azure OpenAI resource accepts. */
export interface AzureBehaviour {
  /** The resource's key (`api-key` header); null: keys are disabled (Entra ID only). */
  apiKey: string | null;
  /** Public keys (SPKI PEM) of the Entra ID tenant whose tokens it trusts (`startMockEntra().signingKeys`). */
  entraKeys: string[];
  /** Deployment name -> the model it serves. */
  deployments: Record<string, string>;
}

export const DEFAULT_AZURE: Readonly<AzureBehaviour> = Object.freeze({
  apiKey: 'mock-azure-key',
  entraKeys: [],
  deployments: {
    'gpt-4o-mini': 'gpt-4o-mini',
    'chat-prod': 'mock-gpt',
    'embed-prod': 'text-embedding-3-small',
  },
});

/** GA and preview api-versions the deployments URLs accept (a subset of Azure's). */
export const AZURE_API_VERSIONS = new Set([
  '2024-06-01',
  '2024-10-21',
  '2025-03-01-preview',
  '2025-04-01-preview',
]);
/** What the v1 URLs accept as api-version, when one is sent at all. */
const V1_API_VERSIONS = new Set(['preview', 'latest']);

/** A prompt containing `[content-filter:<category>]` is refused as Azure refuses a harmful one. */
const FILTER_TRIGGER = /\[content-filter:(hate|sexual|violence|self_harm|jailbreak)\]/;
/**
 * A prompt containing `[content-filter-completion:<category>]` passes, and its completion is cut
 * as Azure cuts a harmful one: `finish_reason: "content_filter"` with the category's verdict.
 */
const COMPLETION_FILTER_TRIGGER = /\[content-filter-completion:(hate|sexual|violence|self_harm)\]/;

const azureError = (status: number, code: string, message: string): JsonReply => ({
  kind: 'json',
  status,
  body: { error: { code, message } },
});

const KEY_DENIED = azureError(
  401,
  '401',
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
);
const TOKEN_DENIED = azureError(
  401,
  '401',
  'Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired.',
);
const NOT_FOUND = azureError(404, '404', 'Resource not found');
const deploymentNotFound = (): JsonReply =>
  azureError(
    404,
    'DeploymentNotFound',
    'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
  );

const SAFE = { filtered: false, severity: 'safe' } as const;
const SAFE_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const PROMPT_RESULTS = [
  {
    prompt_index: 0,
    content_filter_results: { ...SAFE_RESULTS, jailbreak: { filtered: false, detected: false } },
  },
];

/** An Azure request mapped onto the mock's OpenAI routes. */
export interface AzureTarget {
  readonly kind: 'azure';
  /** The OpenAI route's path (`/v1/chat/completions`). */
  readonly path: string;
  /** The body with the deployment's model in it. */
  readonly body: unknown;
  /** Adds Azure's content filter annotations to a success. */
  decorate(reply: EndpointReply): EndpointReply;
}

/**
 * Azure OpenAI's front door, in Azure's order: the URL (deployments or v1), authentication
 * (`api-key`, or an Entra ID bearer token checked for signature, audience and expiry), the
 * api-version, the deployment, then the content filter on the prompt.
 */
export async function azureRequest(
  az: AzureBehaviour,
  method: string,
  path: string,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
  body: unknown,
): Promise<AzureTarget | JsonReply> {
  const dep = /^\/openai\/deployments\/([^/]+)\/(chat\/completions|completions|embeddings)$/.exec(path);
  const v1 = /^\/openai\/v1\/(chat\/completions|completions|responses|embeddings|models)$/.exec(path);
  const unscoped = /^\/openai\/(responses|models)$/.exec(path);
  const operation = dep?.[2] ?? v1?.[1] ?? unscoped?.[1];
  if (operation === undefined) return NOT_FOUND;
  const denied = await authenticate(az, headers);
  if (denied) return denied;
  const version = query.get('api-version');
  if (v1) {
    if (version !== null && !V1_API_VERSIONS.has(version))
      return azureError(400, 'BadRequest', 'API version not supported');
  } else if (version === null) {
    return NOT_FOUND;
  } else if (!AZURE_API_VERSIONS.has(version)) {
    return azureError(400, 'BadRequest', 'API version not supported');
  }
  const openaiPath = `/v1/${operation}`;
  if (operation === 'models') return { kind: 'azure', path: openaiPath, body, decorate: (r) => r };
  const object =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as JsonObject) : null;
  // Deployments URLs name the deployment; the others (v1, Responses) take it as the body's model.
  const deployment = dep
    ? decodeURIComponent(dep[1]!)
    : typeof object?.model === 'string'
      ? object.model
      : null;
  const model =
    deployment !== null && Object.hasOwn(az.deployments, deployment) ? az.deployments[deployment] : undefined;
  if (model === undefined) return deploymentNotFound();
  const prompt = object === null ? '' : promptText(object);
  const category = FILTER_TRIGGER.exec(prompt)?.[1];
  if (category !== undefined) return contentFilterRefusal(category);
  const annotate = operation === 'chat/completions' || operation === 'completions';
  const cut = annotate ? COMPLETION_FILTER_TRIGGER.exec(prompt)?.[1] : undefined;
  return {
    kind: 'azure',
    path: openaiPath,
    body: object === null ? body : { ...object, model },
    decorate: !annotate
      ? (r) => r
      : cut === undefined
        ? withFilterResults
        : (r) => filteredCompletion(withFilterResults(r), cut),
  };
}

async function authenticate(az: AzureBehaviour, headers: IncomingHttpHeaders): Promise<JsonReply | null> {
  const key = headers['api-key'];
  if (key !== undefined) return az.apiKey !== null && key === az.apiKey ? null : KEY_DENIED;
  const auth = headers.authorization;
  if (auth === undefined || !auth.startsWith('Bearer ')) return KEY_DENIED;
  const verdict = await verifyJwt(auth.slice(7), az.entraKeys, COGNITIVE_SERVICES_AUDIENCE);
  return verdict.ok ? null : TOKEN_DENIED;
}

function promptText(body: JsonObject): string {
  const parts: string[] = [];
  if (Array.isArray(body.messages))
    for (const m of body.messages as Array<{ content?: unknown }>) parts.push(textOf(m?.content));
  if (body.prompt !== undefined)
    parts.push(typeof body.prompt === 'string' ? body.prompt : JSON.stringify(body.prompt));
  if (body.input !== undefined)
    parts.push(typeof body.input === 'string' ? body.input : JSON.stringify(body.input));
  if (typeof body.instructions === 'string') parts.push(body.instructions);
  return parts.join('\n');
}

/** Azure's 400 for a prompt its content filter refused: the category's verdict under `innererror`. */
function contentFilterRefusal(category: string): JsonReply {
  const result: Record<string, unknown> = {
    ...SAFE_RESULTS,
    jailbreak: { filtered: false, detected: false },
  };
  result[category] =
    category === 'jailbreak' ? { filtered: true, detected: true } : { filtered: true, severity: 'high' };
  return {
    kind: 'json',
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: result },
      },
    },
  };
}

/**
 * Azure's annotations on a chat or completions success: `prompt_filter_results` on the body (a
 * stream's first chunk, with no choices), `content_filter_results` on each choice.
 */
function withFilterResults(reply: EndpointReply): EndpointReply {
  if (reply.kind === 'json') {
    if (reply.status !== 200) return reply;
    const body = reply.body as { choices?: Array<Record<string, unknown>> };
    return {
      ...reply,
      body: {
        ...body,
        prompt_filter_results: PROMPT_RESULTS,
        choices: (body.choices ?? []).map((c) => ({ ...c, content_filter_results: SAFE_RESULTS })),
      },
    };
  }
  const first = `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_RESULTS })}\n\n`;
  const writes = reply.writes.map((w, i) => (i === 0 ? first : '') + annotateFrames(w));
  return { ...reply, writes };
}

function annotateFrames(text: string): string {
  return text.replace(/^data: (\{.*\})$/gm, (line, json: string) => {
    const chunk = JSON.parse(json) as { choices?: Array<Record<string, unknown>> };
    if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return line;
    chunk.choices = chunk.choices.map((c) => ({
      ...c,
      content_filter_results: c.finish_reason ? {} : SAFE_RESULTS,
    }));
    return `data: ${JSON.stringify(chunk)}`;
  });
}

/** The verdicts on a completion the filter cut: the category filtered at high severity. */
function completionVerdicts(category: string): Record<string, unknown> {
  return { ...SAFE_RESULTS, [category]: { filtered: true, severity: 'high' } };
}

/** The first half of a text, at a word boundary: what passed the filter before it cut. */
function firstHalf(text: string): string {
  const cut = text.lastIndexOf(' ', Math.floor(text.length / 2));
  return cut <= 0 ? '' : text.slice(0, cut);
}

/**
 * A completion Azure's filter cut: the text that passed (Azure may return a partial result),
 * `finish_reason: "content_filter"` and the verdicts on the choice. A stream keeps its first half
 * of content chunks, then ends each choice with that reason and the verdicts (usage and
 * `[DONE]` follow as usual).
 */
function filteredCompletion(reply: EndpointReply, category: string): EndpointReply {
  const verdicts = completionVerdicts(category);
  if (reply.kind === 'json') {
    if (reply.status !== 200) return reply;
    const body = reply.body as { choices?: Array<Record<string, unknown>> };
    const choices = (body.choices ?? []).map((c) => {
      const message = c.message as { content?: unknown } | undefined;
      const cutChoice: Record<string, unknown> = {
        ...c,
        finish_reason: 'content_filter',
        content_filter_results: verdicts,
      };
      if (typeof c.text === 'string') cutChoice.text = firstHalf(c.text);
      if (message !== undefined)
        cutChoice.message = {
          ...message,
          content: typeof message.content === 'string' ? firstHalf(message.content) : null,
          tool_calls: undefined,
        };
      return cutChoice;
    });
    return { ...reply, body: { ...body, choices } };
  }
  const frames = reply.writes.map((w) => w.split(/(?<=\n\n)/));
  const content = frames.flat().filter(isContentFrame).length;
  let kept = 0;
  const keep = Math.max(1, Math.floor(content / 2));
  const writes = frames.map((write) =>
    write
      .map((frame) => {
        if (isContentFrame(frame)) return kept++ < keep ? frame : '';
        const chunk = chunkOf(frame);
        if (chunk === null || !chunk.choices?.some((c) => c.finish_reason)) return frame;
        chunk.choices = chunk.choices.map((c) => ({
          ...c,
          finish_reason: 'content_filter',
          content_filter_results: verdicts,
        }));
        return `data: ${JSON.stringify(chunk)}\n\n`;
      })
      .join(''),
  );
  return { ...reply, writes: writes.filter((w, i) => w !== '' || i === 0) };
}

type Chunk = { choices?: Array<Record<string, unknown>> };

function chunkOf(frame: string): Chunk | null {
  const json = /^data: (\{.*\})\n\n$/s.exec(frame)?.[1];
  return json === undefined ? null : (JSON.parse(json) as Chunk);
}

/** A chunk carrying generated text (a chat delta's content or a completion's text), unfinished. */
function isContentFrame(frame: string): boolean {
  const choice = chunkOf(frame)?.choices?.[0];
  if (choice === undefined || choice.finish_reason) return false;
  const delta = choice.delta as { content?: unknown } | undefined;
  const text = typeof choice.text === 'string' ? choice.text : delta?.content;
  return typeof text === 'string' && text !== '';
}
