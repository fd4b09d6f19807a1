export * from './request.js';
export * from './provider.js';
