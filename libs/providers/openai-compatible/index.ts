export * from './compatible.js';
export * from './adapter.js';
export * from './descriptor.js';
export * from './settings.js';
