export * from './src/run-main.js';
export * from './src/node-flags.js';
