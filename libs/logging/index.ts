export * from './src/logger.js';
export * from './src/log-output.js';
export * from './src/pretty-log.js';
