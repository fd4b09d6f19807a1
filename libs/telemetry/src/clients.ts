import { type TracerProvider } from '@opentelemetry/api';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { Redis } from 'ioredis';
import pg from 'pg';

/**
 * Client spans for Redis commands and Postgres queries, from the OTel instrumentations, applied
 * to the very classes our code imports. The usual route (require hooks, or an --import loader
 * for ESM) does not see ioredis and pg when native ESM imports them, nor under jest's module
 * registry, so we patch the prototypes at start-up instead: no loader flag, same spans.
 *
 * Only inside a span (`requireParentSpan`): background chatter (BullMQ polling, pub/sub, route
 * watches) does not become a trace of its own. Redis spans name the command only: arguments hold
 * key hashes and cached key records.
 */
export function instrumentClients(provider: TracerProvider): () => void {
  const redis = new IORedisInstrumentation({
    enabled: false,
    requireParentSpan: true,
    dbStatementSerializer: (command) => command,
  });
  const postgres = new PgInstrumentation({ enabled: false, requireParentSpan: true });
  redis.setTracerProvider(provider);
  postgres.setTracerProvider(provider);
  const targets: Array<[IORedisInstrumentation | PgInstrumentation, string, unknown]> = [
    [redis, 'ioredis', Redis],
    [postgres, 'pg', pg],
    [postgres, 'pg-pool', pg.Pool],
  ];
  const undo: Array<() => void> = [];
  for (const [instrumentation, name, exports] of targets) {
    const def = instrumentation.getModuleDefinitions().find((d) => d.name === name);
    if (!def?.patch) continue;
    def.patch(exports, undefined);
    undo.push(() => def.unpatch?.(exports, undefined));
  }
  return () => undo.forEach((u) => u());
}
