import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { AdjustmentLog } from '../src/adjustments.js';
import { type ChatRequest } from '../src/chat.js';
import { type JsonObject } from '../src/types.js';
import { geminiClient } from './client-api.js';

/** The translation policy of a Gemini client served by a provider of another format (README.md). */
const agent = (name: string): JsonObject =>
  (JSON.parse(readFileSync(`test/fixtures/agents/${name}`, 'utf8')) as { body: JsonObject }).body;

const base = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };
const fn = (name: string): JsonObject => ({ name, parameters: { type: 'OBJECT', properties: {} } });
const declared = (...names: string[]): JsonObject[] => [{ functionDeclarations: names.map(fn) }];

function translated(body: JsonObject, strict = false): { hub: ChatRequest; items: readonly string[] } {
  const log = new AdjustmentLog(strict);
  const hub = geminiClient.toHub(body, log, { model: 'gpt-4.1', stream: true });
  return { hub, items: log.items };
}

function refusedParam(body: JsonObject, strict = true): unknown {
  try {
    geminiClient.toHub(body, new AdjustmentLog(strict), { model: 'gpt-4.1', stream: false });
  } catch (err) {
    if (err instanceof GatewayError && err.code === 'invalid_request') return err.details.param;
    throw err;
  }
  throw new Error('expected a 400');
}

describe('geminiClient policy: Gemini CLI 0.61.0 towards another provider', () => {
  it('carries a recorded tool turn whole, dropping only topK and the thought signature', () => {
    const body = agent('gemini-cli.generate-content.2.json');
    const { hub, items } = translated(body);
    expect(items).toEqual([
      'dropped contents[].parts[].thoughtSignature (1 parts)',
      'dropped generationConfig.topK',
    ]);
    const declarations = (body.tools as { functionDeclarations: { name: string }[] }[])[0]!
      .functionDeclarations;
    expect(hub.tools?.map((t) => t.function.name)).toEqual(declarations.map((d) => d.name));
    expect([hub.temperature, hub.top_p, hub.thinking, hub.reasoning_effort]).toEqual([
      1,
      0.95,
      { type: 'enabled', budget_tokens: 8192 },
      'medium',
    ]);
    // The CLI's own call id reaches the provider on both the call and its result.
    const call = hub.messages.find((m) => m.tool_calls)!.tool_calls![0]!;
    expect(hub.messages.find((m) => m.role === 'tool')?.tool_call_id).toBe(call.id);
    expect(call.id).toMatch(/^list_directory_\d+_0$/);
  });

  it('reads Gemini 3’s thinkingLevel, and an image sent after a function response as a user turn', () => {
    const { hub } = translated(agent('gemini-cli.generate-content.4.json'));
    expect(hub.reasoning_effort).toBe('high');
    expect(hub.messages.slice(-2).map((m) => m.role)).toEqual(['tool', 'user']);
    expect(hub.messages.at(-1)?.content).toEqual([
      { type: 'image_url', image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) as unknown } },
    ]);
  });

  it('drops the CLI’s dummy signature like any other', () => {
    expect(translated(agent('gemini-cli.generate-content.5.json')).items).toContain(
      'dropped contents[].parts[].thoughtSignature (1 parts)',
    );
  });

  it('gives the router’s classifier its JSON schema in JSON Schema type names', () => {
    const format = translated(agent('gemini-cli.routing.1.json')).hub.response_format as {
      json_schema: { schema: { type: string; properties: Record<string, { type: string }> } };
    };
    expect(format.json_schema.schema.type).toBe('object');
    expect(Object.values(format.json_schema.schema.properties).map((p) => p.type)).toEqual([
      'string',
      'integer',
    ]);
  });

  it('carries the web search helper’s googleSearch as the hub’s web search', () => {
    const { hub, items } = translated(agent('gemini-cli.web-search.1.json'));
    expect([hub.web_search, hub.tools, hub.tool_choice, items]).toEqual([
      { param: 'tools[0]', kind: 'googleSearch' },
      undefined,
      undefined,
      [],
    ]);
  });

  it('refuses topK under translation: strict, naming it', () => {
    expect(refusedParam(agent('gemini-cli.generate-content.1.json'))).toBe('generationConfig.topK');
  });
});

describe('geminiClient policy: tools and tool config', () => {
  it('drops Google-only tools from the list and records them (refused when strict)', () => {
    const tools = [{ codeExecution: {} }, { functionDeclarations: [fn('f')] }, { urlContext: {} }];
    const { hub, items } = translated({ ...base, tools });
    expect(hub.tools?.map((t) => t.function.name)).toEqual(['f']);
    expect(items).toEqual(['dropped tools[0] codeExecution', 'dropped tools[2] urlContext']);
    expect(refusedParam({ ...base, tools })).toBe('tools[0].codeExecution');
    expect(refusedParam({ ...base, tools: [{ retrievalTool: {} }] }, false)).toBe('tools[0].retrievalTool');
  });

  it('keeps the first search, with the options it has', () => {
    const tools = [
      { googleSearchRetrieval: { dynamicRetrievalConfig: { mode: 'MODE_DYNAMIC' } } },
      { googleSearch: {} },
    ];
    const { hub, items } = translated({ ...base, tools });
    expect(hub.web_search).toEqual({
      param: 'tools[0]',
      kind: 'googleSearchRetrieval',
      other_options: ['dynamicRetrievalConfig'],
    });
    expect(items).toEqual(['dropped tools[1] googleSearch']);
  });

  it('maps every functionCallingConfig mode', () => {
    const choice = (functionCallingConfig: JsonObject): unknown[] => {
      const { hub, items } = translated({
        ...base,
        tools: declared('a', 'b', 'c'),
        toolConfig: { functionCallingConfig },
      });
      return [hub.tool_choice, hub.tools?.map((t) => t.function.name).join(), items];
    };
    expect(choice({ mode: 'AUTO' })).toEqual(['auto', 'a,b,c', []]);
    expect(choice({ mode: 'none' })).toEqual(['none', 'a,b,c', []]);
    expect(choice({ mode: 'ANY' })).toEqual(['required', 'a,b,c', []]);
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['b'] })).toEqual([
      { type: 'function', function: { name: 'b' } },
      'a,b,c',
      [],
    ]);
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['c', 'a'] })).toEqual([
      'required',
      'a,c',
      [
        'carried toolConfig.functionCallingConfig.allowedFunctionNames as tool_choice required over 2 of 3 tools',
      ],
    ]);
    expect(choice({ mode: 'VALIDATED' })).toEqual([
      'auto',
      'a,b,c',
      ['dropped toolConfig.functionCallingConfig.mode (VALIDATED, read as AUTO)'],
    ]);
  });

  it('leaves the choice out without function tools, and refuses forcing a call then', () => {
    for (const mode of ['AUTO', 'NONE']) {
      const { hub } = translated({
        ...base,
        tools: [{ googleSearch: {} }],
        toolConfig: { functionCallingConfig: { mode } },
      });
      expect(hub).not.toHaveProperty('tool_choice');
    }
    expect(refusedParam({ ...base, toolConfig: { functionCallingConfig: { mode: 'ANY' } } }, false)).toBe(
      'toolConfig.functionCallingConfig.mode',
    );
    const allowedWithAuto = { mode: 'AUTO', allowedFunctionNames: ['a'] };
    expect(
      refusedParam(
        { ...base, tools: declared('a'), toolConfig: { functionCallingConfig: allowedWithAuto } },
        false,
      ),
    ).toBe('toolConfig.functionCallingConfig.allowedFunctionNames');
    const unknownName = { mode: 'ANY', allowedFunctionNames: ['zz'] };
    expect(
      refusedParam(
        { ...base, tools: declared('a'), toolConfig: { functionCallingConfig: unknownName } },
        false,
      ),
    ).toBe('toolConfig.functionCallingConfig.allowedFunctionNames');
  });

  it('converts OpenAPI parameters recursively and takes parametersJsonSchema, never both', () => {
    const parameters = {
      type: 'OBJECT',
      properties: {
        tags: { type: 'ARRAY', items: { type: 'STRING', nullable: true }, max_items: '5' },
        when: { anyOf: [{ type: 'STRING', format: 'date-time' }, { type: 'INTEGER' }], nullable: true },
      },
    };
    const { hub } = translated({ ...base, tools: [{ functionDeclarations: [{ name: 'f', parameters }] }] });
    expect(hub.tools?.[0]?.function.parameters).toEqual({
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: ['string', 'null'] }, maxItems: 5 },
        when: { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'integer' }, { type: 'null' }] },
      },
    });
    const both = { name: 'f', parameters, parametersJsonSchema: { type: 'object' } };
    expect(refusedParam({ ...base, tools: [{ functionDeclarations: [both] }] }, false)).toBe(
      'tools[0].functionDeclarations[0].parameters',
    );
  });
});

describe('geminiClient policy: request fields', () => {
  it('drops Google’s serving hints, safety settings and media hints, and records each', () => {
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Hi', partMetadata: { source: 'cli' } }] }],
      labels: { team: 'a' },
      serviceTier: 'flex',
      safetySettings: [],
      toolConfig: { includeServerSideToolInvocations: true },
      generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_LOW' },
    };
    expect(translated(body).items).toEqual([
      'dropped labels',
      'dropped serviceTier',
      'dropped safetySettings',
      'dropped contents[].parts[].partMetadata',
      'dropped toolConfig.includeServerSideToolInvocations',
      'dropped generationConfig.mediaResolution',
    ]);
    expect(refusedParam({ ...base, safetySettings: [] })).toBe('safetySettings');
    expect(translated({ ...base, labels: { a: 'b' } }, true).items).toEqual(['dropped labels']);
  });

  it('records nothing for a plain request', () => {
    expect(translated(base).items).toEqual([]);
  });
});
