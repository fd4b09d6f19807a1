import { type LogOutput, type LogRecord, prettyLine } from '#libs/logging';

/** Foreground colours handed out to apps as they first speak (cyan, yellow, magenta, green, blue, ...). */
const PALETTE = [36, 33, 35, 32, 34, 96, 93];
/** pino's numeric levels, to filter the lines this script writes itself. */
const LEVELS: Readonly<Record<string, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface RelayOptions {
  readonly out: { write(text: string): unknown };
  readonly output: LogOutput;
  /** LOG_LEVEL: what this script writes itself is filtered by it (the apps filter their own). */
  readonly level: string;
  /** Longest app name, so messages line up in pretty output. */
  readonly appWidth: number;
  readonly now?: () => Date;
}

type RecordListener = (app: string, record: LogRecord) => void;

/**
 * `npm start`'s single output: the apps write JSON lines into pipes, this writes them out as the
 * start script's own stdout calls for. JSON lines pass through unchanged (the output stays one JSON
 * object a line, with no prefix to break it); pretty output renders them. A line that is not a JSON
 * log record (a crash's stack trace on stderr, a tool's plain output) becomes a record of its own.
 */
export class LogRelay {
  private readonly colors = new Map<string, number>();
  private readonly listeners: RecordListener[] = [];

  constructor(private readonly options: RelayOptions) {}

  /** Called with each JSON log record an app writes (to pick fields such as the setup link). */
  onRecord(listener: RecordListener): void {
    this.listeners.push(listener);
  }

  /** One line an app wrote to its stdout or stderr. */
  childLine(app: string, pid: number | undefined, stream: 'stdout' | 'stderr', text: string): void {
    const record = logRecordOf(text);
    if (record) {
      for (const listener of this.listeners) listener(app, record);
      if (this.options.output.format === 'json') this.options.out.write(`${text}\n`);
      else this.write(app, record);
      return;
    }
    this.emit(stream === 'stderr' ? 'error' : 'info', app, pid, text);
  }

  /** A line from the start script itself. */
  say(level: Level, message: string, fields: Record<string, unknown> = {}): void {
    this.emit(level, 'start', process.pid, message, fields);
  }

  /**
   * The ready banner: one JSON record (`msg` and the fields) or, for a person, the text as it is.
   * Written whatever LOG_LEVEL says: it is the script's result, not a log line to filter.
   */
  banner(message: string, fields: Record<string, unknown>, text: string): void {
    const { out, output } = this.options;
    if (output.format === 'pretty') return void out.write(text);
    out.write(`${JSON.stringify(this.record('info', 'start', process.pid, message, fields))}\n`);
  }

  private emit(
    level: Level,
    app: string,
    pid: number | undefined,
    message: string,
    fields: Record<string, unknown> = {},
  ): void {
    if ((LEVELS[level] ?? 0) < (LEVELS[this.options.level] ?? LEVELS.info!)) return;
    this.write(app, this.record(level, app, pid, message, fields));
  }

  private record(
    level: Level,
    app: string,
    pid: number | undefined,
    message: string,
    fields: Record<string, unknown>,
  ): LogRecord {
    const time = (this.options.now?.() ?? new Date()).toISOString();
    return { level, time, app, ...(pid === undefined ? {} : { pid }), msg: message, ...fields };
  }

  private write(app: string, record: LogRecord): void {
    const { out, output, appWidth } = this.options;
    if (output.format === 'json') return void out.write(`${JSON.stringify(record)}\n`);
    const appColor = app === 'start' ? undefined : this.colorOf(app);
    out.write(prettyLine(record, { color: output.color, appWidth, appColor }));
  }

  private colorOf(app: string): number {
    let color = this.colors.get(app);
    if (color === undefined) {
      color = PALETTE[this.colors.size % PALETTE.length] ?? 36;
      this.colors.set(app, color);
    }
    return color;
  }
}

/** The line as a log record when it is one (a JSON object with a string `level`), else null. */
export function logRecordOf(text: string): LogRecord | null {
  if (!text.startsWith('{')) return null;
  try {
    const value: unknown = JSON.parse(text);
    const isRecord =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      typeof (value as Record<string, unknown>).level === 'string';
    return isRecord ? (value as LogRecord) : null;
  } catch {
    return null;
  }
}
