export * from './src/types.js';
export * as openai from './openai/index.js';
