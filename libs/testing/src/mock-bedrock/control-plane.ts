import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { accessDenied, type BedrockAction } from './access.js';
import { authenticate, type MockIdentities } from './authenticate.js';
import { awsError, type AwsReply, validation } from './errors.js';

/** One request the control plane received, as it came. */
export interface ControlPlaneRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingMessage['headers'];
}

export interface MockControlPlane {
  readonly url: string;
  readonly requests: readonly ControlPlaneRequest[];
  reset(): void;
  close(): Promise<void>;
}

/** The foundation models the mock's region lists: [id, name, provider, inputs, outputs, inference types]. */
const CATALOG: ReadonlyArray<readonly [string, string, string, string[], string[], string[]]> = [
  [
    'anthropic.claude-sonnet-4-5-20250929-v1:0',
    'Claude Sonnet 4.5',
    'Anthropic',
    ['TEXT', 'IMAGE'],
    ['TEXT'],
    ['INFERENCE_PROFILE'],
  ],
  [
    'amazon.nova-pro-v1:0',
    'Nova Pro',
    'Amazon',
    ['TEXT', 'IMAGE', 'VIDEO'],
    ['TEXT'],
    ['ON_DEMAND', 'INFERENCE_PROFILE'],
  ],
  ['meta.llama3-1-70b-instruct-v1:0', 'Llama 3.1 70B Instruct', 'Meta', ['TEXT'], ['TEXT'], ['ON_DEMAND']],
  [
    'amazon.titan-embed-text-v2:0',
    'Titan Text Embeddings V2',
    'Amazon',
    ['TEXT'],
    ['EMBEDDING'],
    ['ON_DEMAND'],
  ],
  ['cohere.embed-english-v3', 'Embed English', 'Cohere', ['TEXT'], ['EMBEDDING'], ['ON_DEMAND']],
];

/** ListFoundationModels' filters (Bedrock API reference): each enum as AWS validates it. */
const ENUMS: Readonly<Record<string, readonly string[]>> = {
  byCustomizationType: ['FINE_TUNING', 'CONTINUED_PRE_TRAINING', 'DISTILLATION'],
  byOutputModality: ['TEXT', 'IMAGE', 'EMBEDDING'],
  byInferenceType: ['ON_DEMAND', 'PROVISIONED'],
};
const PROVIDER_NAME = /^[A-Za-z0-9- ]{1,63}$/;

/**
 * A mock of Bedrock's control plane (`bedrock.{region}.amazonaws.com`), the endpoint the router's
 * probe lists foundation models on: authenticated as the runtime is (the same account's key pairs
 * and API keys, SigV4 scoped to service `bedrock`), authorized by `denied`, and serving exactly
 * ListFoundationModels (`GET /foundation-models`). Anything else, a runtime operation sent here
 * included, is refused as AWS refuses it: ValidationException, "not recognized".
 */
export async function startMockControlPlane(
  ids: MockIdentities,
  denied: () => ReadonlySet<BedrockAction>,
): Promise<MockControlPlane> {
  const requests: ControlPlaneRequest[] = [];
  const handle = async (req: IncomingMessage, raw: Buffer): Promise<AwsReply> => {
    const url = new URL(req.url ?? '/', 'http://mock');
    const method = req.method ?? 'GET';
    requests.push({ method, path: url.pathname, query: url.search, headers: req.headers });
    const refused = await authenticate(ids, req, url, raw);
    if (refused) return refused;
    if (method !== 'GET' || url.pathname !== '/foundation-models')
      return validation('The requested operation is not recognized by the service.');
    if (denied().has('bedrock:ListFoundationModels'))
      return accessDenied('bedrock:ListFoundationModels', null);
    return listFoundationModels(url.searchParams, ids.region);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void handle(req, Buffer.concat(chunks))
        .catch((err: unknown) => awsError(500, 'InternalServerException', String(err)))
        .then((out) => res.writeHead(out.status, out.headers).end(out.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reset: () => (requests.length = 0),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function listFoundationModels(query: URLSearchParams, region: string): AwsReply {
  const errors: string[] = [];
  for (const [name, values] of Object.entries(ENUMS)) {
    const value = query.get(name);
    if (value !== null && !values.includes(value))
      errors.push(
        `Value '${value}' at '${name}' failed to satisfy constraint: Member must satisfy enum value set: [${values.join(', ')}]`,
      );
  }
  const provider = query.get('byProvider');
  if (provider !== null && !PROVIDER_NAME.test(provider))
    errors.push(
      `Value '${provider}' at 'byProvider' failed to satisfy constraint: Member must satisfy regular expression pattern: [A-Za-z0-9- ]{1,63}`,
    );
  if (errors.length > 0)
    return validation(
      `${errors.length} validation error${errors.length > 1 ? 's' : ''} detected: ${errors.join('; ')}`,
    );
  const output = query.get('byOutputModality');
  const inference = query.get('byInferenceType');
  const summaries = CATALOG.filter(
    ([, , name, , outputs, types]) =>
      (provider === null || name.toLowerCase() === provider.toLowerCase()) &&
      (output === null || outputs.includes(output)) &&
      (inference === null || types.includes(inference)) &&
      query.get('byCustomizationType') === null,
  ).map(([modelId, modelName, providerName, inputModalities, outputModalities, inferenceTypesSupported]) => ({
    modelArn: `arn:aws:bedrock:${region}::foundation-model/${modelId}`,
    modelId,
    modelName,
    providerName,
    inputModalities,
    outputModalities,
    responseStreamingSupported: !outputModalities.includes('EMBEDDING'),
    customizationsSupported: [],
    inferenceTypesSupported,
    modelLifecycle: { status: 'ACTIVE' },
  }));
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID() },
    body: Buffer.from(JSON.stringify({ modelSummaries: summaries })),
  };
}
