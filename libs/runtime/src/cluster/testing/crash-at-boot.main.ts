/**
 * A cluster whose workers die at once, before listening (primary.int-spec.ts): the primary must
 * give up and exit 1. The worker branch imports nothing, so each fork costs only Node's start.
 */
import cluster from 'node:cluster';

if (cluster.isPrimary) {
  const { createLogger } = await import('#libs/telemetry');
  const { runPrimary } = await import('../primary.js');
  const { RestartPolicy } = await import('../restart-policy.js');
  runPrimary({
    name: 'crasher',
    processes: 2,
    log: createLogger({ app: 'crasher', level: 'info' }),
    shutdownBudgetMs: 5_000,
    policy: new RestartPolicy({ maxBootFailures: 4, baseDelayMs: 10, maxDelayMs: 50, stableMs: 30_000 }),
  });
} else {
  process.exit(3);
}
