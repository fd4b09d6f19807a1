export * from './adapter.js';
export * from './endpoint.js';
export * from './native.js';
export * from './provider.js';
export * from './mapping.js';
export * from './embeddings.js';
export * from './descriptor.js';
