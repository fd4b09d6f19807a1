export * from './src/run-main.js';
