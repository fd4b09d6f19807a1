export * from './src/run-main.js';
export * from './src/node-flags.js';
export * from './src/graceful-drain.js';
export * from './src/clients-closer.js';
