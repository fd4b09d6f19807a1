export * from './src/keys.js';
export * from './src/client.js';
export * from './src/hash-slot.js';
export * from './src/outage-log.js';
export * from './src/while-ready.js';
