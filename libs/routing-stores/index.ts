/**
 * Routing's Redis side: the route table (publish, and the edges' pub/sub watcher), the passive
 * samples stream, and the provider concurrency/rpm slots. The pure ranking these carry lives in
 * `#libs/routing`, which does no I/O.
 */
export * from './src/routes.store.js';
export * from './src/samples.store.js';
export * from './src/provider-limits.store.js';
