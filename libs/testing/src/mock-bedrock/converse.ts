import { mockId } from '../mock-provider/ids.js';
import {
  firstWords,
  promptWithImages,
  replyText,
  shapeReply,
  splitEvenly,
  textOf,
  tokensForLength,
  tokensOf,
} from '../mock-provider/text.js';
import { planToolCalls, type ToolForcing, type ToolSpec } from '../mock-provider/tools.js';
import { eventFrame } from './frames.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ConverseOptions {
  readonly chunkCount: number;
  readonly reply: string | null;
  /** Prompt tokens reported as read from / written to the cache (when the request has a cachePoint). */
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
}

interface Plan {
  readonly reasoning: { text: string; signature: string } | null;
  readonly text: string;
  readonly deltas: readonly string[];
  readonly calls: readonly { id: string; name: string; arguments: string }[];
  readonly stopReason: string;
  readonly usage: Json;
}

/** The answer a valid Converse request gets: deterministic, as the other mocks' answers are. */
function plan(body: Json, model: string, o: ConverseOptions): Plan {
  const messages = body.messages as Json[];
  const last = messages[messages.length - 1]!;
  const blocks = last.content as Json[];
  const lastIsUserText = last.role === 'user' && !blocks.some((b) => b.toolResult !== undefined);
  // Images show in the echoed prompt, as with the other mocks, so a test sees they arrived.
  const lastUser = lastIsUserText
    ? promptWithImages(
        blocks.flatMap((b) => (typeof b.text === 'string' ? [b.text] : [])).join(' '),
        blocks.filter((b) => b.image !== undefined).length,
      )
    : '';
  const config = isObject(body.toolConfig) ? body.toolConfig : {};
  const calls = planToolCalls(
    tools(config.tools),
    forcing(config.toolChoice),
    lastIsUserText ? lastUser : null,
    true,
  ).map((c) => ({ id: mockId('tooluse_'), ...c }));
  const inference = isObject(body.inferenceConfig) ? body.inferenceConfig : {};
  const shaped =
    calls.length > 0
      ? shapeReply(`I'll use the ${calls.map((c) => c.name).join(' and ')} tool.`, { chunkCount: 2 })
      : shapeReply(replyText(lastUser, o.reply, o.chunkCount), {
          chunkCount: o.chunkCount,
          maxTokens: typeof inference.maxTokens === 'number' ? inference.maxTokens : undefined,
          stops: Array.isArray(inference.stopSequences) ? (inference.stopSequences as string[]) : undefined,
        });
  const thinking = isObject(body.additionalModelRequestFields)
    ? body.additionalModelRequestFields.thinking
    : undefined;
  const reasoning =
    isObject(thinking) && thinking.type === 'enabled' && /anthropic\./.test(model)
      ? { text: `Thinking about: ${firstWords(lastUser, 8)}`, signature: mockId('sig_') }
      : null;
  const chars =
    textOf(body.system).length + messages.reduce((n, m) => n + JSON.stringify(m.content).length, 0);
  const prompt = tokensForLength(chars);
  const cached = JSON.stringify(body).includes('"cachePoint"');
  const read = cached ? Math.min(o.cacheReadTokens, prompt) : 0;
  const write = cached ? Math.min(o.cacheWriteTokens, prompt - read) : 0;
  const output =
    shaped.tokens +
    (reasoning ? tokensOf(reasoning.text) : 0) +
    calls.reduce((n, c) => n + tokensOf(c.arguments) + 8, 0);
  const usage: Json = {
    inputTokens: prompt - read - write,
    outputTokens: output,
    totalTokens: prompt + output,
  };
  if (cached) Object.assign(usage, { cacheReadInputTokens: read, cacheWriteInputTokens: write });
  const stopReason =
    calls.length > 0
      ? 'tool_use'
      : shaped.finish === 'length'
        ? 'max_tokens'
        : shaped.finish === 'stop_sequence'
          ? 'stop_sequence'
          : 'end_turn';
  return { reasoning, text: shaped.text, deltas: shaped.deltas, calls, stopReason, usage };
}

export function converseBody(body: Json, model: string, o: ConverseOptions): Json {
  const p = plan(body, model, o);
  const content: Json[] = [];
  if (p.reasoning) content.push({ reasoningContent: { reasoningText: p.reasoning } });
  if (p.text !== '') content.push({ text: p.text });
  for (const c of p.calls)
    content.push({ toolUse: { toolUseId: c.id, name: c.name, input: JSON.parse(c.arguments) as unknown } });
  return {
    metrics: { latencyMs: 42 },
    output: { message: { role: 'assistant', content } },
    stopReason: p.stopReason,
    usage: p.usage,
  };
}

/** ConverseStream's frames, in Bedrock's order: reasoning, text and tool blocks, then messageStop and metadata. */
export function converseFrames(body: Json, model: string, o: ConverseOptions): Buffer[] {
  const p = plan(body, model, o);
  const frames: Buffer[] = [];
  const frame = (type: string, payload: Json): number =>
    frames.push(eventFrame(type, payload, frames.length));
  frame('messageStart', { role: 'assistant' });
  let index = 0;
  if (p.reasoning) {
    for (const piece of splitEvenly(p.reasoning.text, 2))
      frame('contentBlockDelta', { contentBlockIndex: index, delta: { reasoningContent: { text: piece } } });
    frame('contentBlockDelta', {
      contentBlockIndex: index,
      delta: { reasoningContent: { signature: p.reasoning.signature } },
    });
    frame('contentBlockStop', { contentBlockIndex: index++ });
  }
  if (p.text !== '') {
    for (const piece of p.deltas)
      frame('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } });
    frame('contentBlockStop', { contentBlockIndex: index++ });
  }
  for (const c of p.calls) {
    frame('contentBlockStart', {
      contentBlockIndex: index,
      start: { toolUse: { toolUseId: c.id, name: c.name } },
    });
    for (const piece of splitEvenly(c.arguments, 2))
      frame('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: piece } } });
    frame('contentBlockStop', { contentBlockIndex: index++ });
  }
  frame('messageStop', { stopReason: p.stopReason });
  frame('metadata', { usage: p.usage, metrics: { latencyMs: 42 } });
  return frames;
}

function tools(value: unknown): ToolSpec[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((t) => {
    const spec = isObject(t) && isObject(t.toolSpec) ? t.toolSpec : null;
    return spec
      ? [{ name: String(spec.name), schema: isObject(spec.inputSchema) ? spec.inputSchema.json : {} }]
      : [];
  });
}

function forcing(choice: unknown): ToolForcing {
  if (!isObject(choice)) return { kind: 'auto' };
  if (choice.any !== undefined) return { kind: 'any' };
  if (isObject(choice.tool) && typeof choice.tool.name === 'string')
    return { kind: 'named', name: choice.tool.name };
  return { kind: 'auto' };
}
