import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OpenAI from 'openai';
import { parseConfig } from '#libs/gateway-config';
import { registerProviderType } from '#libs/providers';
import { labDescriptor } from '../fixtures/provider-type/descriptor.js';
import { ConsoleClient } from '../support/console-client.js';
import { type Gateway, startGateway, testConfig, testModel } from '../support/gateway.js';

/**
 * Adding a provider type is its folder and one registry line (issue 32): a type defined only in
 * test/fixtures/provider-type, registered before the apps start, is taken by the configuration,
 * shown by the console's form, and reached by requests, native and translated.
 */
registerProviderType(labDescriptor);

const TOKEN = 'fixture-provider-type-admin-token-0123';
const LAB_KEY = 'lab-secret-key';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly key: string | undefined;
  readonly body: Record<string, unknown> | null;
}

/** The lab server: OpenAI's chat wire under `/v1/tenants/{tenant}`, refusing any other key. */
function labServer(seen: Seen[]): Server {
  return createServer((req, res) => {
    void bodyOf(req).then((body) => {
      const key = req.headers['x-lab-key'] as string | undefined;
      seen.push({ method: req.method ?? '', path: req.url ?? '', key, body });
      const send = (status: number, payload: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      };
      if (key !== LAB_KEY) return send(401, { error: { message: 'bad key', type: 'auth' } });
      if (req.method === 'GET' && req.url === '/v1/tenants/acme/models') return send(200, { data: [] });
      if (req.method !== 'POST' || req.url !== '/v1/tenants/acme/chat/completions')
        return send(404, { error: { message: 'no such path', type: 'not_found' } });
      send(200, {
        id: 'chatcmpl-lab',
        object: 'chat.completion',
        created: 1767225600,
        model: String(body?.model),
        choices: [
          { index: 0, message: { role: 'assistant', content: 'hello from the lab' }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
      });
    });
  });
}

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0
    ? null
    : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
}

const seen: Seen[] = [];
let lab: Server;
let labUrl: string;
let gw: Gateway;

const labEntry = () => ({
  id: 'lab-1',
  type: 'lab',
  base_url: `${labUrl}/v1`,
  tenant: 'acme',
  api_key_env: 'LAB_API_KEY',
  models: ['lab-model'],
});

beforeAll(async () => {
  lab = labServer(seen);
  await new Promise<void>((resolve) => lab.listen(0, '127.0.0.1', resolve));
  labUrl = `http://127.0.0.1:${(lab.address() as AddressInfo).port}`;
  gw = await startGateway(
    'e2e-fixture-provider-type',
    (mockUrl) => {
      const base = testConfig(mockUrl);
      return {
        ...base,
        providers: [...base.providers, labEntry()],
        models: [...base.models, testModel('lab-model')],
        groups: { ...base.groups, default: [...(base.groups.default as string[]), 'lab-model'] },
      };
    },
    { env: { LAB_API_KEY: LAB_KEY, CONSOLE_ADMIN_TOKEN: TOKEN } },
  );
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await new Promise((resolve) => lab?.close(resolve));
}, 60_000);

describe('a provider type from a test folder', () => {
  it('the configuration takes it by its descriptor, and refuses it without its own setting', () => {
    const base = testConfig('http://127.0.0.1:1');
    const doc = (provider: Record<string, unknown>) => ({
      ...base,
      providers: [provider],
      models: [testModel('lab-model')],
      groups: { default: ['lab-model'] },
    });
    expect(parseConfig(doc(labEntry())).providers[0]).toMatchObject({ type: 'lab', tenant: 'acme' });
    const { tenant: _t, ...noTenant } = labEntry();
    expect(() => parseConfig(doc(noTenant))).toThrow(/providers\[0\]\.tenant: required for type lab/);
    expect(() => parseConfig(doc({ ...labEntry(), region: 'us-east-1' }))).toThrow(
      /providers\[0\]\.region: region applies to type bedrock only \(this provider is lab\)/,
    );
  });

  it("the console's form gets its fields from the published schema", async () => {
    const res = await new ConsoleClient(gw.consoleUrl, TOKEN).get('/api/admin/config/provider-types');
    expect(res.status).toBe(200);
    const types = res.body.types as { type: string; label: string; settings: Record<string, unknown> }[];
    const labType = types.find((t) => t.type === 'lab');
    expect(labType).toMatchObject({
      label: 'Lab server',
      settings: { properties: { tenant: { title: 'Tenant', type: 'string' } }, required: ['tenant'] },
    });
    expect(types.map((t) => t.type)).toContain('bedrock');
  });

  it('an OpenAI client reaches it natively: its path, its key header, one log row', async () => {
    const client = new OpenAI({
      baseURL: `${gw.edgeUrl}/v1`,
      apiKey: (await gw.createKey()).raw,
      maxRetries: 0,
    });
    const { data, response } = await client.chat.completions
      .create({ model: 'lab-model', messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe('hello from the lab');
    const call = seen.filter((s) => s.method === 'POST').at(-1)!;
    expect(call).toMatchObject({ path: '/v1/tenants/acme/chat/completions', key: LAB_KEY });
    expect(call.body).toMatchObject({ model: 'lab-model', messages: [{ role: 'user', content: 'hi' }] });
    const row = await gw.logRow(response.headers.get('x-request-id')!);
    expect(row).toMatchObject({ provider_id: 'lab-1', model: 'lab-model', status: 200 });
  });

  it('an Anthropic client reaches it through the hub', async () => {
    const client = new Anthropic({ baseURL: gw.edgeUrl, apiKey: (await gw.createKey()).raw, maxRetries: 0 });
    const message = await client.messages.create({
      model: 'lab-model',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'hi there' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'hello from the lab' }]);
    expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 4 });
    const call = seen.filter((s) => s.method === 'POST').at(-1)!;
    expect(call.body).toMatchObject({
      model: 'lab-model',
      messages: [{ role: 'user', content: 'hi there' }],
    });
  });
});
