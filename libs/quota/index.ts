/**
 * Quota: prices, admission (balance, key spend limit, budgets by period, rate limits) and settlement in Redis, the
 * grant ledger, and rebuilding the Redis copy from Postgres. The design, the overdraw bound and
 * the reconciliation argument are in docs/quota.md.
 *
 * Functions doing I/O take `QuotaDeps`: `{ db, redis, keys }` = the kysely handle (Postgres is the
 * truth), an ioredis client (the edges' fast copy) and `redisKeys(prefix)` of the deployment.
 * For the console: `grantCredits(deps, { userId, nanos, grantedBy, note })` -> new durable balance
 * (bigint), `readBalance(deps, userId)` -> { balanceNanos, spentNanos, liveNanos }, and
 * `listGrants(db, userId)` from `#libs/db` for the history.
 */
export * from './src/pricing.js';
export * from './src/accounts.js';
export * from './src/admission.js';
export * from './src/quota.store.js';
export * from './src/rebuild.js';
export * from './src/grants.js';
export * from './src/limits.js';
export * from './src/budget-window.js';
export * from './src/budgets.js';
export * from './src/budget-rebuild.js';
export * from './src/leases.js';
