export * from './src/request-log.job.js';
export * from './src/stream-marker.js';
