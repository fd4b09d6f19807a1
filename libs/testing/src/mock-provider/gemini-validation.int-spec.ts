import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startMockProvider, type MockProvider } from '../../index.js';

let mock: MockProvider;

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());

interface GoogleError {
  error: { code: number; message: string; status: string; details?: { fieldViolations?: object[] }[] };
}

async function send(model: string, body: unknown, method = 'generateContent') {
  const res = await fetch(`${mock.url}/v1beta/models/${model}:${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as GoogleError };
}

const user = (...parts: object[]) => ({ role: 'user', parts });
const model = (...parts: object[]) => ({ role: 'model', parts });
const hi = user({ text: 'Hi' });
const call = { functionCall: { name: 'get_weather', args: { location: 'Oslo' } } };
const response = { functionResponse: { name: 'get_weather', response: { temperature: '3C' } } };
const declare = (declaration: object) => ({
  tools: [{ functionDeclarations: [{ name: 'f', ...declaration }] }],
});
const FLASH = 'gemini-2.5-flash';

describe('parsing as Google does: unknown names at proto paths, bad values, oneofs', () => {
  it.each([
    [
      { contents: [hi], temperature: 0.5 },
      'Invalid JSON payload received. Unknown name "temperature": Cannot find field.',
    ],
    [
      { contents: [hi], labels: { team: 'a' } },
      'Invalid JSON payload received. Unknown name "labels": Cannot find field.',
    ],
    [
      { contents: [hi], generationConfig: { foo: 1 } },
      `Invalid JSON payload received. Unknown name "foo" at 'generation_config': Cannot find field.`,
    ],
    [
      {
        contents: [hi],
        ...declare({ parameters: { type: 'OBJECT', properties: { a: { type: 'STRING', const: 'x' } } } }),
      },
      `Invalid JSON payload received. Unknown name "const" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field.`,
    ],
    [
      { contents: [hi], generationConfig: { temperature: 'hot' } },
      `Invalid value at 'generation_config.temperature' (TYPE_FLOAT), "hot"`,
    ],
    [
      { contents: [hi], toolConfig: { functionCallingConfig: { mode: 'SOMETIMES' } } },
      `Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "SOMETIMES"`,
    ],
    [
      { contents: [user(call), user({ functionResponse: { name: 'f', response: [1] } })] },
      `Invalid JSON payload received. Unknown name "response" at 'contents[1].parts[0].function_response': Proto field is not repeating, cannot start list.`,
    ],
    [
      { contents: [user({ text: 'a', inlineData: { mimeType: 'image/png', data: 'AAAA' } })] },
      `Invalid value at 'contents[0].parts[0]' (oneof), oneof field 'data' is already set. Cannot set 'inlineData'`,
    ],
  ])('refuses %j', async (body, message) => {
    const res = await send(FLASH, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 400, message, status: 'INVALID_ARGUMENT' });
    expect(res.body.error.details?.[0]).toMatchObject({
      '@type': 'type.googleapis.com/google.rpc.BadRequest',
    });
  });

  it('reports every unknown name at once, one line and one field violation each', async () => {
    const parameters = {
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string', $ref: '#/x' } } },
    };
    const res = await send(FLASH, { contents: [hi], ...declare({ parameters }) });
    const at = 'tools[0].function_declarations[0].parameters';
    expect(res.body.error.message).toBe(
      [
        `Invalid JSON payload received. Unknown name "additionalProperties" at '${at}': Cannot find field.`,
        `Invalid JSON payload received. Unknown name "$ref" at '${at}.properties[1].value.items': Cannot find field.`,
      ].join('\n'),
    );
    expect(res.body.error.details?.[0]?.fieldViolations).toEqual([
      expect.objectContaining({ field: at }),
      expect.objectContaining({ field: `${at}.properties[1].value.items` }),
    ]);
  });

  it('takes proto names, lower-case enums and numbers in strings, and full JSON Schema in parametersJsonSchema', async () => {
    const accepted = await send(FLASH, {
      contents: [{ parts: [{ text: 'Hi' }] }],
      generation_config: { max_output_tokens: '50', temperature: '0.5' },
      tool_config: { function_calling_config: { mode: 'auto' } },
      ...declare({ parametersJsonSchema: { type: 'object', additionalProperties: false, properties: {} } }),
    });
    expect(accepted.status).toBe(200);
  });

  it('refuses a body that is not JSON, or not an object', async () => {
    expect((await send(FLASH, '{"contents": [')).body.error.message).toBe(
      'Invalid JSON payload received. Unexpected token.',
    );
    expect((await send(FLASH, [hi])).body.error.message).toBe(
      'Invalid JSON payload received. Unknown name "": Root element must be a message.',
    );
  });
});

describe('request checks', () => {
  const msg = (path: string, problem: string) => `* GenerateContentRequest.${path}: ${problem}\n`;
  const fnOrder = 'Please ensure that function response turn comes immediately after a function call turn.';
  const thinking = (model: string, thinkingConfig: object): [string, object] => [
    model,
    { contents: [hi], generationConfig: { thinkingConfig } },
  ];
  it.each<[string, object, string]>([
    [FLASH, {}, msg('contents', 'contents is not specified')],
    [FLASH, { contents: [] }, msg('contents', 'contents is not specified')],
    [FLASH, { contents: [user()] }, msg('contents[0].parts', 'contents.parts must not be empty.')],
    [
      FLASH,
      { contents: [user({ thought: true })] },
      msg('contents[0].parts[0].data', "required oneof field 'data' must have one initialized field"),
    ],
    [
      FLASH,
      { contents: [{ role: 'system', parts: [{ text: 'x' }] }] },
      'Please use a valid role: user, model.',
    ],
    [
      FLASH,
      { contents: [hi, { role: 'assistant', parts: [{ text: 'x' }] }] },
      'Please use a valid role: user, model.',
    ],
    [FLASH, { contents: [hi, user(response)] }, fnOrder],
    [FLASH, { contents: [hi, model({ text: 'I will check.' }), user(response)] }, fnOrder],
    [
      FLASH,
      { contents: [hi, model(call, call), user(response)] },
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    ],
    [
      FLASH,
      { contents: [model(call), user(response)] },
      'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
    ],
    [
      FLASH,
      {
        contents: [hi],
        ...declare({ parameters: { type: 'OBJECT' }, parametersJsonSchema: { type: 'object' } }),
      },
      msg(
        'tools[0].function_declarations[0].parameters_json_schema',
        'parameters_json_schema must not be set when parameters is set.',
      ),
    ],
    [
      FLASH,
      { contents: [hi], ...declare({ parameters: { type: 'OBJECT', properties: {}, required: ['city'] } }) },
      msg('tools[0].function_declarations[0].parameters.required[0]', 'property is not defined'),
    ],
    [
      FLASH,
      { contents: [hi], tools: [{ functionDeclarations: [{ name: '1st tool' }] }] },
      'Invalid function name.',
    ],
    [
      FLASH,
      { contents: [hi], generationConfig: { temperature: 2.5 } },
      'Unable to submit request because it has a temperature value of 2.5 but the supported range is from 0 (inclusive) to 2.0001 (exclusive). Update the value and try again.',
    ],
    [
      FLASH,
      { contents: [hi], generationConfig: { stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'] } },
      msg('generation_config.stop_sequences', 'the number of stop_sequences must not exceed 5.'),
    ],
    [FLASH, { contents: [hi], generationConfig: { candidateCount: 9 } }, 'candidateCount value of 9'],
    [
      FLASH,
      { contents: [hi], generationConfig: { maxOutputTokens: 70000 } },
      'maxOutputTokens value of 70000',
    ],
    [
      'gemini-3-pro-preview',
      { contents: [hi], generationConfig: { candidateCount: 2 } },
      'Multiple candidates is not enabled for this model',
    ],
    [
      ...thinking('gemini-2.5-pro', { thinkingBudget: 0 }),
      'Budget 0 is invalid. This model only works in thinking mode.',
    ],
    [...thinking('gemini-3-pro-preview', { thinkingBudget: 0 }), 'Budget 0 is invalid.'],
    [...thinking(FLASH, { thinkingBudget: 50000 }), 'The thinking budget (50000) is invalid.'],
    [...thinking(FLASH, { thinkingLevel: 'LOW' }), 'Thinking level is not supported for this model.'],
    [
      ...thinking('gemini-3-pro-preview', { thinkingLevel: 'minimal' }),
      "'minimal' is not a supported thinking level",
    ],
    [...thinking('gemini-2.0-flash', { thinkingBudget: 1024 }), 'thinking_config is not supported.'],
    [
      FLASH,
      {
        contents: [hi],
        cachedContent: 'cachedContents/c1',
        systemInstruction: { parts: [{ text: 'Be brief' }] },
      },
      'Tool config, tools and system instruction should not be set in the request when using cached content.',
    ],
  ])('%s refuses %j', async (name, body, message) => {
    const res = await send(name, body);
    expect(res.status).toBe(400);
    expect(res.body.error.status).toBe('INVALID_ARGUMENT');
    expect(res.body.error.message).toContain(message);
  });

  it.each<[string, object]>([
    thinking(FLASH, { thinkingBudget: 0 }),
    thinking('gemini-2.5-pro', { thinkingBudget: -1 }),
    thinking('gemini-3-pro-preview', { thinkingLevel: 'low', includeThoughts: true }),
    thinking('gemini-2.0-flash', { thinkingBudget: 0 }),
    [FLASH, { contents: [hi, model(call, call), user(response, response)] }],
    [FLASH, { contents: [hi, model({ text: 'Checking' }, call), user(response, { text: 'and?' })] }],
  ])('%s accepts %j', async (name, body) => {
    const res = await send(name, body);
    expect(res.body).not.toHaveProperty('error');
    expect(res.status).toBe(200);
  });

  it('refuses an unknown cache as not found, and validates countTokens bodies', async () => {
    const cache = await send(FLASH, { contents: [hi], cachedContent: 'my-cache' });
    expect(cache.status).toBe(403);
    expect(cache.body.error).toMatchObject({ status: 'PERMISSION_DENIED' });
    const empty = await send(FLASH, {}, 'countTokens');
    expect(empty.body.error.message).toBe('* CountTokensRequest.contents: contents is not specified\n');
    const extra = await send(FLASH, { contents: [hi], generationConfig: {} }, 'countTokens');
    expect(extra.body.error.message).toBe(
      'Invalid JSON payload received. Unknown name "generationConfig": Cannot find field.',
    );
    const unknown = await send('gemini-9', { contents: [hi] }, 'countTokens');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toContain('is not supported for countTokens.');
  });
});
