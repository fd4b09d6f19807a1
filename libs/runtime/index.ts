export * from './src/run-main.js';
export * from './src/node-flags.js';
export * from './src/graceful-drain.js';
export * from './src/clients-closer.js';
export * from './src/client-error.js';
export * from './src/http-server.js';
export * from './src/periodic.js';
export * from './src/health-gauges.provider.js';
