export * from './src/upstream-auth.js';
export * from './src/token-refresher.js';
export * from './src/bearer-auth.js';
export * from './src/provider-credentials.js';
