import fc from 'fast-check';
import {
  type ChatChunk,
  type ChatCompletion,
  type ChatCompletionMessage,
  type ThinkingBlock,
} from '../src/chat.js';

/** fast-check generators of valid client requests and hub streams, for the property specs. */

const text = fc.string({ maxLength: 12 });
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/);
const callId = fc.stringMatching(/^call_[a-z0-9]{6}$/);
const args = fc.json({ maxDepth: 1 });
const unit = fc.double({ min: 0, max: 1, noNaN: true });
const model = fc.constantFrom('gpt-4o', 'claude-sonnet-4', 'sonar');
const image = fc.record(
  { url: fc.webUrl(), detail: fc.constantFrom<'auto' | 'low' | 'high'>('auto', 'low', 'high') },
  { requiredKeys: ['url'] },
);
const parameters = fc.constant({ type: 'object', properties: { q: { type: 'string' } } });

const chatPart = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text }),
  fc.record({ type: fc.constant('image_url' as const), image_url: image }),
);
const chatToolCall = fc.record({
  id: callId,
  type: fc.constant('function' as const),
  function: fc.record({ name, arguments: args }),
});
const chatMessage = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'developer'), content: text }),
  fc.record({
    role: fc.constant('user'),
    content: fc.oneof(text, fc.array(chatPart, { minLength: 1, maxLength: 3 })),
  }),
  fc.record(
    {
      role: fc.constant('assistant'),
      content: fc.option(text, { nil: null }),
      tool_calls: fc.array(chatToolCall, { minLength: 1, maxLength: 3 }),
    },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: text }),
);

export const chatRequest = fc.record(
  {
    model,
    messages: fc.array(chatMessage, { maxLength: 6 }),
    stream: fc.boolean(),
    max_completion_tokens: fc.nat({ max: 4096 }),
    temperature: unit,
    top_p: unit,
    stop: fc.oneof(text, fc.array(text, { maxLength: 4 })),
    tools: fc.array(
      fc.record({
        type: fc.constant('function' as const),
        function: fc.record({ name, description: text, parameters }),
      }),
      { maxLength: 3 },
    ),
    tool_choice: fc.oneof(
      fc.constantFrom('none', 'auto', 'required'),
      fc.record({ type: fc.constant('function'), function: fc.record({ name }) }),
    ),
    parallel_tool_calls: fc.boolean(),
    user: text,
  },
  { requiredKeys: ['model', 'messages'] },
);

const inputPart = fc.oneof(
  fc.record({ type: fc.constant('input_text'), text }),
  fc.record({
    type: fc.constant('input_image'),
    image_url: fc.webUrl(),
    detail: fc.constantFrom('auto', 'low', 'high'),
  }),
);
export const responsesItem = fc.oneof(
  fc.record({
    role: fc.constantFrom('user', 'system', 'developer'),
    content: fc.oneof(text, fc.array(inputPart, { minLength: 1, maxLength: 3 })),
  }),
  fc.record({
    type: fc.constant('message'),
    role: fc.constant('assistant'),
    content: fc.array(fc.record({ type: fc.constant('output_text'), text, annotations: fc.constant([]) }), {
      minLength: 1,
      maxLength: 2,
    }),
  }),
  fc.record({ type: fc.constant('function_call'), call_id: callId, name, arguments: args }),
  fc.record({ type: fc.constant('function_call_output'), call_id: callId, output: text }),
);

export const responsesRequest = fc
  .record(
    {
      model,
      input: fc.oneof(text, fc.array(responsesItem, { maxLength: 8 })),
      instructions: text,
      max_output_tokens: fc.nat({ max: 4096 }),
      temperature: unit,
      top_p: unit,
      tools: fc.array(fc.record({ type: fc.constant('function'), name, parameters, strict: fc.boolean() }), {
        maxLength: 3,
      }),
      tool_choice: fc.oneof(
        fc.constantFrom('none', 'auto', 'required'),
        fc.record({ type: fc.constant('function'), name }),
      ),
      parallel_tool_calls: fc.boolean(),
      stream: fc.boolean(),
      store: fc.boolean(),
    },
    { requiredKeys: ['model', 'input'] },
  )
  .map((req) => {
    // Forcing a call with no tool to call is a request OpenAI refuses too: not a valid input.
    const forces = req.tool_choice !== undefined && req.tool_choice !== 'none' && req.tool_choice !== 'auto';
    if (!forces || (req.tools?.length ?? 0) > 0) return req;
    const { tool_choice: _forced, ...rest } = req;
    return rest;
  });

export const completionsRequest = fc.record(
  {
    model,
    prompt: fc.oneof(
      text,
      text.map((p) => [p]),
    ),
    max_tokens: fc.nat({ max: 4096 }),
    temperature: unit,
    top_p: unit,
    stop: fc.oneof(text, fc.array(text, { maxLength: 4 })),
    presence_penalty: unit,
    frequency_penalty: unit,
    seed: fc.nat(),
    n: fc.constant(1),
    echo: fc.constant(false),
    stream: fc.boolean(),
  },
  { requiredKeys: ['model', 'prompt'] },
);

const thinkingBlock: fc.Arbitrary<ThinkingBlock> = fc.oneof(
  fc.record({
    type: fc.constant('thinking' as const),
    thinking: text,
    signature: fc.base64String({ minLength: 4, maxLength: 16 }),
  }),
  fc.record({
    type: fc.constant('redacted_thinking' as const),
    data: fc.base64String({ minLength: 4, maxLength: 16 }),
  }),
);

/** What a model says, as pieces in stream order: reasoning, thinking, text, then tool calls. */
export interface Script {
  readonly reasoning: readonly string[];
  readonly blocks: readonly ThinkingBlock[];
  readonly text: readonly string[];
  readonly calls: readonly {
    readonly id: string;
    readonly name: string;
    readonly pieces: readonly string[];
  }[];
  readonly finish: 'stop' | 'length' | 'tool_calls';
  readonly usage: { prompt_tokens: number; completion_tokens: number; cached: number };
}

export const script: fc.Arbitrary<Script> = fc.record({
  reasoning: fc.array(text, { maxLength: 4 }),
  blocks: fc.array(thinkingBlock, { maxLength: 2 }),
  text: fc.array(text, { maxLength: 6 }),
  calls: fc.uniqueArray(fc.record({ id: callId, name, pieces: fc.array(text, { maxLength: 4 }) }), {
    maxLength: 3,
    selector: (c) => c.id,
  }),
  finish: fc.constantFrom('stop', 'length', 'tool_calls'),
  usage: fc.record({
    prompt_tokens: fc.nat({ max: 10000 }),
    completion_tokens: fc.nat({ max: 10000 }),
    cached: fc.nat({ max: 100 }),
  }),
});

const chunk = (delta: object, finish: Script['finish'] | null = null): ChatChunk =>
  ({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finish }],
  }) as ChatChunk;

const hubUsage = (s: Script) => ({
  prompt_tokens: s.usage.prompt_tokens,
  completion_tokens: s.usage.completion_tokens,
  total_tokens: s.usage.prompt_tokens + s.usage.completion_tokens,
  prompt_tokens_details: { cached_tokens: Math.min(s.usage.cached, s.usage.prompt_tokens) },
});

/** The script as a hub stream: one piece per chunk, then the finish and the usage chunk. */
export function chunksOf(s: Script): ChatChunk[] {
  return [
    chunk({ role: 'assistant', content: '' }),
    ...s.reasoning.map((r) => chunk({ reasoning_content: r })),
    ...(s.blocks.length > 0 ? [chunk({ thinking_blocks: s.blocks })] : []),
    ...s.text.map((t) => chunk({ content: t })),
    ...s.calls.flatMap((c, index) => [
      chunk({
        tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }],
      }),
      ...c.pieces.map((p) => chunk({ tool_calls: [{ index, function: { arguments: p } }] })),
    ]),
    chunk({}, s.finish),
    { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: hubUsage(s) },
  ];
}

/** The same script as one hub completion. */
export function completionOf(s: Script): ChatCompletion {
  const message: ChatCompletionMessage = {
    role: 'assistant',
    content: s.text.join('') || null,
    ...(s.reasoning.join('') && { reasoning_content: s.reasoning.join('') }),
    ...(s.blocks.length > 0 && { thinking_blocks: s.blocks }),
    ...(s.calls.length > 0 && {
      tool_calls: s.calls.map((c) => ({
        id: c.id,
        type: 'function' as const,
        function: { name: c.name, arguments: c.pieces.join('') },
      })),
    }),
  };
  return {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message, finish_reason: s.finish }],
    usage: hubUsage(s),
  };
}
