export * from './src/errors.js';
export * from './src/render.js';
export * from './src/sse.js';
export * from './src/json-body.js';
export * from './src/json-member.js';
export * from './src/recorded-text.js';
export * from './src/bounded-json.js';
