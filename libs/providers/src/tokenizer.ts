import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { type Slice, slicesOf } from './token-slices.js';

/**
 * Which tokenizer counts a model's prompt, and loading it. OpenAI's encodings are exact for
 * OpenAI models (gpt-tokenizer is a port of tiktoken's tables); Anthropic publishes no tokenizer
 * for Claude 3 and later, so Claude models are approximated with o200k (docs/routing.md has the
 * measured error). Other vendors' models (Llama, Mistral, DeepSeek...) get o200k as an estimate.
 */
export type TokenizerFamily = 'o200k' | 'cl100k' | 'claude';

/** Tokens of a text; special-token strings in it (`<|endoftext|>`) count as plain text. */
export type CountText = (text: string) => number;

/** gpt-4 and gpt-4-turbo (not gpt-4o, gpt-4.1, gpt-4.5), gpt-3.5 and the embedding models. */
const CL100K = /^(gpt-4(?![o.])|gpt-3\.5|text-embedding-)/;

/** The family of the first name that says one (model id, then upstream names); o200k otherwise. */
export function tokenizerFamilyOf(modelNames: readonly string[]): TokenizerFamily {
  for (const raw of modelNames) {
    // Routers and proxies prefix a vendor (`anthropic/claude-sonnet-4`, `openai/gpt-4o`).
    const name = raw.toLowerCase().split('/').at(-1)!;
    if (name.includes('claude')) return 'claude';
    if (CL100K.test(name)) return 'cl100k';
    if (/^(gpt-|o\d|chatgpt-)/.test(name)) return 'o200k';
  }
  return 'o200k';
}

type Encoding = 'o200k_base' | 'cl100k_base';
const ENCODING: Readonly<Record<TokenizerFamily, Encoding>> = {
  o200k: 'o200k_base',
  cl100k: 'cl100k_base',
  claude: 'o200k_base',
};

/** Tokens of several texts, summed (the request paths' counter: see Tokenizer). */
export type CountTexts = (texts: readonly string[]) => Promise<number>;

/**
 * A family's counter, in two forms. Both cut the text first (`token-slices.ts`), so counting is
 * linear in its length: exact for text with breaks (words, code, JSON), a few tokens apart on a
 * run of hundreds of chars without one.
 */
export interface Tokenizer {
  /** At once: for a text known to be small (one message, a test). */
  readonly count: CountText;
  /**
   * For what a client sends, whatever its size: the event loop runs between slices at least
   * every YIELD_MS (300 KB of random letters takes about 0.7 s to count), and past
   * COUNT_LIMIT_CHARS the rest is not counted but extrapolated at the ratio of what was.
   */
  readonly countAll: CountTexts;
}

/** The longest the counting of one request holds the event loop before letting it run. */
export const YIELD_MS = 10;
/**
 * Chars counted per call of `countAll`, about 250,000 tokens of English (more than most models'
 * context) and at most about 3 s of CPU on the costliest text measured (random words). Past it
 * the count is an estimate: the work any one request can cause stays bounded.
 */
export const COUNT_LIMIT_CHARS = 1024 * 1024;

const loaded = new Map<Encoding, Promise<Tokenizer>>();
const PLAIN = { disallowedSpecial: new Set<string>() };

/**
 * The family's tokenizer. Each encoding's tables are loaded on first use and kept (o200k: about
 * 0.5 s and 70 MB the first time), so a process that never counts locally never pays for them.
 */
export function tokenizerFor(family: TokenizerFamily): Promise<Tokenizer> {
  const encoding = ENCODING[family];
  let tokenizer = loaded.get(encoding);
  if (tokenizer === undefined) {
    tokenizer = load(encoding);
    loaded.set(encoding, tokenizer);
    tokenizer.catch(() => loaded.delete(encoding));
  }
  return tokenizer;
}

/** The family's counter for small texts (`Tokenizer.count`). */
export const textCounterFor = async (family: TokenizerFamily): Promise<CountText> =>
  (await tokenizerFor(family)).count;

async function load(encoding: Encoding): Promise<Tokenizer> {
  const [bpe, patterns] = await Promise.all([
    encoding === 'o200k_base'
      ? import('gpt-tokenizer/encoding/o200k_base')
      : import('gpt-tokenizer/encoding/cl100k_base'),
    // The encoding's own split regex, so the cuts fall between the pieces it makes.
    import('gpt-tokenizer/encodingParams/constants'),
  ]);
  const split =
    encoding === 'o200k_base' ? patterns.O200K_TOKEN_SPLIT_REGEX : patterns.CL100K_TOKEN_SPLIT_REGEX;
  const countSlice = (text: string, s: Slice): number =>
    bpe.countTokens(s.start === 0 && s.end === text.length ? text : text.slice(s.start, s.end), PLAIN);
  const count: CountText = (text) => {
    let tokens = 0;
    for (const s of slicesOf(text, split)) tokens += countSlice(text, s);
    return tokens;
  };
  const countAll: CountTexts = async (texts) => {
    let tokens = 0;
    let counted = 0;
    let skipped = 0;
    let since = performance.now();
    for (const text of texts) {
      if (counted >= COUNT_LIMIT_CHARS) {
        skipped += text.length;
        continue;
      }
      for (const s of slicesOf(text, split)) {
        tokens += countSlice(text, s);
        counted += s.end - s.start;
        if (counted >= COUNT_LIMIT_CHARS) {
          skipped += text.length - s.end;
          break;
        }
        if (performance.now() - since >= YIELD_MS) {
          await yieldToLoop();
          since = performance.now();
        }
      }
    }
    return skipped === 0 ? tokens : tokens + Math.ceil((skipped * tokens) / counted);
  };
  return { count, countAll };
}
