import { context, type Context, type TracerProvider } from '@opentelemetry/api';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { Pipeline, Redis } from 'ioredis';
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
  // Restored first: its wrappers sit on top of the instrumentation's.
  undo.unshift(keepCallerContext());
  return () => undo.forEach((u) => u());
}

const CALLER = Symbol('otel caller context');
type Traced = { [CALLER]?: Context };

/**
 * The instrumentation opens a command's span in `sendCommand`, under the context active there. With
 * auto-pipelining that runs when the batch is sent (a setImmediate, or the previous batch's reply),
 * in the context of whichever caller opened the batch: another request's trace, or none at all (no
 * span, under requireParentSpan). So each command keeps the context it was issued in, and is sent in it.
 */
function keepCallerContext(): () => void {
  const send = Redis.prototype.sendCommand;
  const queue = Pipeline.prototype.sendCommand;
  Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<Redis['sendCommand']>) {
    const cmd = args[0] as unknown as Traced | undefined;
    if (cmd === undefined || cmd === null || typeof cmd !== 'object') return send.apply(this, args);
    cmd[CALLER] ??= context.active();
    return context.with(cmd[CALLER], () => send.apply(this, args));
  };
  Pipeline.prototype.sendCommand = function (this: Pipeline, ...args: Parameters<Pipeline['sendCommand']>) {
    const cmd = args[0] as unknown as Traced | undefined;
    if (cmd !== undefined && cmd !== null && typeof cmd === 'object') cmd[CALLER] ??= context.active();
    return queue.apply(this, args);
  };
  return () => {
    Redis.prototype.sendCommand = send;
    Pipeline.prototype.sendCommand = queue;
  };
}
