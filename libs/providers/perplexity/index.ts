export * from './request.js';
export * from './provider.js';
export * from './adapter.js';
export * from './descriptor.js';
