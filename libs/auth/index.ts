export * from './src/api-key.js';
export * from './src/key-record.js';
export * from './src/key-invalidation.js';
export * from './src/key-cache.store.js';
export * from './src/password.js';
export * from './src/bearer.js';
