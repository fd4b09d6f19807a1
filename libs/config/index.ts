export * from './src/gateway.schema.js';
export * from './src/env.js';
export * from './src/redis-target.js';
export * from './src/load.js';
export * from './src/catalog.js';
export * from './src/provider-key-vars.js';
export * from './src/credential-origins.js';
export * from './src/provider-entry.js';
