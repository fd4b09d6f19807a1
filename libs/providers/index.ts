export * from './src/types.js';
export * from './src/chat.js';
export * from './src/translation.js';
export * from './src/adjustments.js';
export * from './src/capabilities.js';
export * as openai from './openai/index.js';
export * as anthropic from './anthropic/index.js';
export * as openaiCompatible from './openai-compatible/index.js';
export * as perplexity from './perplexity/index.js';
