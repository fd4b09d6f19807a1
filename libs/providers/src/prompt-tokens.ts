import { type ChatContentPart, type ChatMessage, type ChatRequest, type ChatTool } from './chat.js';
import { imageUrlTokens } from './image-tokens.js';
import { type CountText, type CountTexts, type TokenizerFamily } from './tokenizer.js';

/**
 * How a model family frames a prompt around its text, in tokens. The OpenAI numbers are the
 * cookbook's ("How to count tokens with tiktoken", sections 6 and 7), which match the API's
 * `prompt_tokens` exactly on its examples; the Claude numbers are fitted to the examples of
 * Anthropic's token-counting guide, plus its documented tool-use system prompt (Claude 4 models).
 */
interface FramingRules {
  /** Every message's framing, its role included. */
  readonly perMessage: number;
  /** A message's `name` costs its text plus this. */
  readonly perName: number;
  /** The assistant turn every prompt ends on. */
  readonly priming: number;
  /** A tool call inside an assistant message, beyond its name and arguments. */
  readonly perToolCall: number;
  readonly tools: OpenAIFunctionRules | ClaudeToolRules;
}

/** OpenAI renders function definitions in its own compact syntax, not as JSON. */
interface OpenAIFunctionRules {
  readonly kind: 'functions';
  readonly funcInit: number;
  readonly propInit: number;
  readonly propKey: number;
  readonly enumInit: number;
  readonly enumItem: number;
  readonly funcEnd: number;
}

/** Claude reads tool definitions as JSON inside a tool-use system prompt of a known size. */
interface ClaudeToolRules {
  readonly kind: 'json';
  /** Tool-use system prompt with `tool_choice` auto or none. */
  readonly preambleAuto: number;
  /** With `tool_choice` any or a named tool. */
  readonly preambleForced: number;
}

const OPENAI_FUNCTIONS = {
  kind: 'functions',
  propInit: 3,
  propKey: 3,
  enumInit: -3,
  enumItem: 3,
  funcEnd: 12,
};

export const FRAMING: Readonly<Record<TokenizerFamily, FramingRules>> = {
  o200k: {
    perMessage: 4,
    perName: 1,
    priming: 3,
    perToolCall: 3,
    tools: { ...OPENAI_FUNCTIONS, kind: 'functions', funcInit: 7 },
  },
  cl100k: {
    perMessage: 4,
    perName: 1,
    priming: 3,
    perToolCall: 3,
    tools: { ...OPENAI_FUNCTIONS, kind: 'functions', funcInit: 10 },
  },
  claude: {
    perMessage: 3,
    perName: 1,
    priming: 1,
    perToolCall: 3,
    tools: { kind: 'json', preambleAuto: 346, preambleForced: 313 },
  },
};

/**
 * The input tokens of a hub request as a model of the family would count them: every message's
 * text, names, images and tool calls with their framing, and the tool definitions. Thinking of
 * earlier turns is not counted (both vendors drop it from the context).
 */
export function countPromptTokens(req: ChatRequest, count: CountText, family: TokenizerFamily): number {
  const rules = FRAMING[family];
  let total = rules.priming;
  for (const m of req.messages) total += messageTokens(m, count, rules);
  const tools = req.tools ?? [];
  if (tools.length === 0) return total;
  if (rules.tools.kind === 'json') {
    const forced = req.tool_choice === 'required' || typeof req.tool_choice === 'object';
    total += forced ? rules.tools.preambleForced : rules.tools.preambleAuto;
    for (const t of tools) total += count(JSON.stringify(claudeToolOf(t)));
    return total;
  }
  for (const t of tools) total += functionTokens(t, count, rules.tools);
  return total + rules.tools.funcEnd;
}

/**
 * `countPromptTokens` for what a client sent, with the texts counted by a `CountTexts` (in slices
 * that let the event loop run, the work bounded: tokenizer.ts). A prompt's count is its framing
 * plus the sum of its texts' counts, so the texts are set aside while the framing is added up,
 * then counted together.
 */
export async function countPromptTokensAsync(
  req: ChatRequest,
  countAll: CountTexts,
  family: TokenizerFamily,
): Promise<number> {
  const texts: string[] = [];
  const framing = countPromptTokens(
    req,
    (text) => {
      texts.push(text);
      return 0;
    },
    family,
  );
  return framing + (await countAll(texts));
}

function messageTokens(m: ChatMessage, count: CountText, rules: FramingRules): number {
  let n = rules.perMessage + contentTokens(m.content, count);
  if (m.name !== undefined) n += count(m.name) + rules.perName;
  for (const call of m.tool_calls ?? []) {
    n += rules.perToolCall + count(call.function.name) + count(call.function.arguments);
  }
  return n;
}

function contentTokens(content: string | readonly ChatContentPart[] | null, count: CountText): number {
  if (content === null) return 0;
  if (typeof content === 'string') return count(content);
  let n = 0;
  for (const part of content) {
    n += part.type === 'text' ? count(part.text) : imageUrlTokens(part.image_url.url);
  }
  return n;
}

const claudeToolOf = (t: ChatTool) => ({
  name: t.function.name,
  description: t.function.description,
  input_schema: t.function.parameters,
});

type Schema = Readonly<Record<string, unknown>>;

/** The cookbook's formula, plus nested object and array schemas as JSON (which it leaves out). */
function functionTokens(t: ChatTool, count: CountText, r: OpenAIFunctionRules): number {
  const fn = t.function;
  let n = r.funcInit + count(`${fn.name}:${trimDot(fn.description ?? '')}`);
  const properties = (fn.parameters?.properties ?? {}) as Readonly<Record<string, Schema>>;
  const keys = Object.keys(properties);
  if (keys.length === 0) return n;
  n += r.propInit;
  for (const key of keys) {
    const p = properties[key] ?? {};
    n += r.propKey;
    if (Array.isArray(p.enum)) {
      n += r.enumInit;
      for (const item of p.enum) n += r.enumItem + count(String(item));
    }
    const type = typeof p.type === 'string' ? p.type : JSON.stringify(p.type ?? 'any');
    const description = typeof p.description === 'string' ? p.description : '';
    n += count(`${key}:${type}:${trimDot(description)}`);
    const nested = p.properties ?? p.items;
    if (nested !== undefined) n += count(JSON.stringify(nested));
  }
  return n;
}

const trimDot = (s: string): string => (s.endsWith('.') ? s.slice(0, -1) : s);
