export * from './src/keys.js';
export * from './src/client.js';
