import { describe, expect, it } from '@jest/globals';
import { createLogger, PinoNestLogger } from './logger.js';
import { type LogOutput } from './log-output.js';

/** A logger writing into an array, one entry per write. */
function capture(level: string, output?: LogOutput) {
  const writes: string[] = [];
  const log = createLogger({
    app: 'edge',
    level,
    output,
    destination: { write: (s: string) => writes.push(s) },
  });
  return { log, writes };
}

describe('createLogger', () => {
  it('writes JSON lines by default, a hostile message escaped inside one line', () => {
    const { log, writes } = capture('info');
    log.info('ok\n{"level":"error","msg":"forged"}');
    expect(writes).toHaveLength(1);
    expect(writes[0]!.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(writes[0]!)).toMatchObject({
      level: 'info',
      app: 'edge',
      msg: 'ok\n{"level":"error","msg":"forged"}',
    });
  });

  it('writes pretty lines when asked, with the fields pino adds', () => {
    const { log, writes } = capture('info', { format: 'pretty', color: false });
    log.info({ status: 200 }, 'done');
    expect(writes).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d INFO {2}edge done status=200\n$/)]);
  });

  it('keeps redacting in pretty lines', () => {
    const { log, writes } = capture('info', { format: 'pretty', color: false });
    log.info({ headers: { authorization: 'Bearer sk-secret' } }, 'call');
    expect(writes.join('')).not.toContain('sk-secret');
    expect(writes.join('')).toContain('[redacted]');
  });
});

describe("PinoNestLogger: Nest's start-up chatter", () => {
  const chatter: [string, string][] = [
    ['Starting Nest application...', 'NestFactory'],
    ['AppModule dependencies initialized', 'InstanceLoader'],
    ['HealthController {/}:', 'RoutesResolver'],
    ['Mapped {/healthz, GET} route', 'RouterExplorer'],
    ['Nest application successfully started', 'NestApplication'],
  ];

  it('is not shown at info, while the app’s own info lines are', () => {
    const { log, writes } = capture('info');
    const nest = new PinoNestLogger(log);
    for (const [message, context] of chatter) nest.log(message, context);
    nest.log('became leader', 'RoutePublisher');
    expect(writes.map((w) => (JSON.parse(w) as { msg: string }).msg)).toEqual(['became leader']);
  });

  it('is shown at debug, as debug lines', () => {
    const { log, writes } = capture('debug');
    const nest = new PinoNestLogger(log);
    for (const [message, context] of chatter) nest.log(message, context);
    expect(writes.map((w) => JSON.parse(w) as Record<string, unknown>)).toEqual(
      chatter.map(([msg, context]) => expect.objectContaining({ level: 'debug', msg, context })),
    );
  });

  it("keeps the level of Nest's warnings and errors", () => {
    const { log, writes } = capture('info');
    const nest = new PinoNestLogger(log);
    nest.warn('duplicate route', 'RouterExplorer');
    nest.error('cannot resolve', 'InstanceLoader');
    expect(writes.map((w) => (JSON.parse(w) as { level: string }).level)).toEqual(['warn', 'error']);
  });
});
