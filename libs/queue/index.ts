export * from './src/request-log.job.js';
