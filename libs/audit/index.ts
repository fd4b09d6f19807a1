/**
 * The audit trail: append-only events in Postgres (`audit_events`, migration 0012), chained by
 * SHA-256 so a removed or altered row shows; recording, verification, filtering and export. The
 * console records through it; docs/console-api.md lists the actions and the event's shape.
 */
export * from './src/event.js';
export * from './src/mask.js';
export * from './src/chain.js';
export * from './src/append.js';
export * from './src/verify.js';
export * from './src/query.js';
export * from './src/view.js';
