export * from './compatible.js';
export * from './adapter.js';
