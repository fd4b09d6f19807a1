export * from './src/route-table.js';
export * from './src/route-table.schema.js';
export * from './src/provider-health.js';
export * from './src/build-route-table.js';
export * from './src/select-candidates.js';
export * from './src/routes.store.js';
export * from './src/route-sample.js';
export * from './src/samples.store.js';
