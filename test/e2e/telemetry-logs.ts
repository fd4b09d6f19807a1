import { Writable } from 'node:stream';
import { Logger } from '@nestjs/common';
import { createLogger, PinoNestLogger } from '#libs/telemetry';

export interface AppLogs {
  /** Every JSON line written since the capture began, parsed. */
  readonly lines: ReadonlyArray<Record<string, unknown>>;
}

/**
 * Sends the apps' log lines (`new Logger(X)` anywhere, through the same pino setup as in
 * production, redaction included) to memory as well as stdout. Call after the apps are created:
 * each app creation installs its own Nest logger, and the last one installed serves the process.
 */
export function captureAppLogs(): AppLogs {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      // Not waiting on stdout's callback: under jest it may never come, which would stall the sink.
      process.stdout.write(chunk);
      done();
    },
  });
  Logger.overrideLogger(
    new PinoNestLogger(createLogger({ app: 'gateway-test', level: 'info', destination: sink })),
  );
  return { lines };
}
