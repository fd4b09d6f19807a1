export * from './src/pricing.js';
