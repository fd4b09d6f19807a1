import { context, createContextKey, trace } from '@opentelemetry/api';
import { type LoggerService } from '@nestjs/common';
import { type DestinationStream, type Logger, pino } from 'pino';
import { type LogOutput, type LogSettings, resolveLogOutput } from './log-output.js';
import { escapeControl, type PrettyOptions, prettyLine } from './pretty-log.js';

/** The request id in the OTel context (set with the request's server span), for log lines. */
export const REQUEST_ID_KEY = createContextKey('gateway.request.id');

/**
 * Never logged, wherever they appear in a logged object: credentials, and the content of
 * prompts and completions (the gateway logs metadata, never what users and models said).
 */
export const REDACT_PATHS: readonly string[] = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  'req.headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'headers.cookie',
  'req.headers.cookie',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'messages',
  '*.messages',
  'prompt',
  '*.prompt',
  'input',
  '*.input',
  'choices',
  '*.choices',
];

export interface LoggerOptions {
  readonly app: string;
  /** pino level (Env.logLevel). */
  readonly level: string;
  /** Defaults to JSON lines (see resolveLogOutput for how an app decides). */
  readonly output?: LogOutput;
  /** Defaults to stdout; tests pass a stream to read the lines. */
  readonly destination?: DestinationStream;
}

/**
 * Turns each JSON line pino writes into its pretty rendering. Pretty lines are for a person at a
 * terminal, so the cost of parsing back what pino just wrote does not matter; JSON output skips this.
 */
export function prettyDestination(out: DestinationStream, options: PrettyOptions): DestinationStream {
  return {
    write(line: string): void {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        return void out.write(`${escapeControl(line.replace(/\n$/, ''))}\n`);
      }
      out.write(prettyLine(record as Record<string, unknown>, options));
    },
  };
}

/**
 * A logger writing JSON lines, or pretty ones when `output` says so. Each line inside a traced request carries `trace_id`, `span_id` and
 * `request_id` (from the active OTel context, so only while tracing is on; with tracing off no
 * per-request context is kept, see AlsContextManager).
 */
export function createLogger(opts: LoggerOptions): Logger {
  const pretty = opts.output?.format === 'pretty';
  const destination = pretty
    ? prettyDestination(opts.destination ?? process.stdout, { color: opts.output?.color ?? false })
    : opts.destination;
  return pino(
    {
      level: opts.level,
      base: { app: opts.app, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACT_PATHS], censor: '[redacted]' },
      mixin: traceFields,
    },
    destination,
  );
}

/** An app's logger as its environment asks: LOG_LEVEL, and LOG_FORMAT or what stdout is. */
export function appLogger(env: LogSettings, app: string, level: string = env.logLevel): Logger {
  return createLogger({ app, level, output: resolveLogOutput(env, process.stdout) });
}

function traceFields(): Record<string, string> {
  const active = context.active();
  const span = trace.getSpan(active);
  if (!span) return {};
  const sc = span.spanContext();
  const requestId = active.getValue(REQUEST_ID_KEY);
  return typeof requestId === 'string'
    ? { trace_id: sc.traceId, span_id: sc.spanId, request_id: requestId }
    : { trace_id: sc.traceId, span_id: sc.spanId };
}

type Level = 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal';

/**
 * Nest's own progress messages (modules loaded, each route mapped, "successfully started"): about a
 * hundred and fifty lines at every start that say nothing an operator acts on. Their `log` calls
 * are debug lines here; their warnings and errors keep their level.
 */
const NEST_CHATTER: ReadonlySet<string> = new Set([
  'NestFactory',
  'NestApplication',
  'NestMicroservice',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'InjectorLogger',
  'InstanceWrapper',
]);

/**
 * Nest's LoggerService on pino: `new Logger(Name).warn(msg)` anywhere in an app becomes one JSON
 * line with `context: Name`. Nest passes the context as the last string argument, and for errors
 * a stack before it.
 */
export class PinoNestLogger implements LoggerService {
  constructor(readonly pino: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(asked: Level, message: unknown, rest: unknown[]): void {
    const args = [...rest];
    const context = args.length > 0 && typeof args.at(-1) === 'string' ? (args.pop() as string) : undefined;
    const level = asked === 'info' && context !== undefined && NEST_CHATTER.has(context) ? 'debug' : asked;
    if (!this.pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    const extra = args[0];
    if (typeof extra === 'string' && extra.includes('\n    at ')) fields.stack = extra;
    else if (extra instanceof Error) fields.err = extra;
    if (message instanceof Error) {
      fields.err = message;
      this.pino[level](fields, message.message);
    } else if (typeof message === 'object' && message !== null) {
      this.pino[level]({ ...fields, ...(message as Record<string, unknown>) });
    } else {
      this.pino[level](fields, String(message));
    }
  }
}

const NEST_TO_PINO: ReadonlyArray<[string, string]> = [
  ['verbose', 'trace'],
  ['debug', 'debug'],
  ['log', 'info'],
  ['warn', 'warn'],
  ['error', 'error'],
  ['fatal', 'fatal'],
];

/**
 * The Nest logger of an app: lines at `LOG_LEVEL` in the format appLogger picks, or, when a caller
 * (a test) passes Nest log levels, at the most verbose of them (none = silent).
 */
export function nestLogger(env: LogSettings, app: string, nestLevels?: readonly string[]): PinoNestLogger {
  const level =
    nestLevels === undefined
      ? env.logLevel
      : (NEST_TO_PINO.find(([nest]) => nestLevels.includes(nest))?.[1] ?? 'silent');
  return new PinoNestLogger(appLogger(env, app, level));
}
