export * from './adapter.js';
export * from './endpoint.js';
export * from './realtime-route.js';
export * from './content-filter.js';
export type * from './wire.js';
export * from './descriptor.js';
