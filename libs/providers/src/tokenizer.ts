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

const loaded = new Map<Encoding, Promise<CountText>>();
const PLAIN = { disallowedSpecial: new Set<string>() };

/**
 * The family's counter. Each encoding's tables are loaded on first use and kept (o200k: about
 * 0.5 s and 70 MB the first time), so a process that never counts locally never pays for them.
 */
export function textCounterFor(family: TokenizerFamily): Promise<CountText> {
  const encoding = ENCODING[family];
  let counter = loaded.get(encoding);
  if (counter === undefined) {
    counter = (
      encoding === 'o200k_base'
        ? import('gpt-tokenizer/encoding/o200k_base')
        : import('gpt-tokenizer/encoding/cl100k_base')
    ).then((m) => (text: string) => (text === '' ? 0 : m.countTokens(text, PLAIN)));
    loaded.set(encoding, counter);
    counter.catch(() => loaded.delete(encoding));
  }
  return counter;
}
