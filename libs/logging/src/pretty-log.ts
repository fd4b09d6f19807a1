/**
 * The terminal rendering of a log record (one parsed JSON log line): `time LEVEL app message k=v`.
 * Pure: the logger's pretty destination and `npm start` (which reads its apps' JSON lines) share it.
 */

/** One parsed JSON log line: pino's `level`, `time`, `app`, `msg`, and whatever the call added. */
export type LogRecord = Readonly<Record<string, unknown>>;

export interface PrettyOptions {
  readonly color: boolean;
  /** Width the app name is padded to, so messages of several apps line up. */
  readonly appWidth?: number;
  /** SGR colour code of the app name (e.g. 36, cyan), when colour is on. */
  readonly appColor?: number;
}

/** Shown inline at most: the rest is counted (`+3 more`), not dropped silently. */
const MAX_FIELDS = 6;
const MAX_VALUE = 160;
/** Pino's own fields, and those the line shows elsewhere (time, level, app, message, context). */
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'app', 'pid', 'hostname', 'msg', 'context']);
const LEVEL_COLOR: Readonly<Record<string, number>> = {
  trace: 90,
  debug: 90,
  info: 32,
  warn: 33,
  error: 31,
  fatal: 35,
};

/**
 * C0 and C1 controls, DEL, Unicode line and paragraph separators, and bidirectional overrides: any
 * of them in a message could end the line early, move the cursor, recolour or reorder the terminal's
 * text, so a hostile string could pass for a log line of its own.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** The text with every unsafe character written as a visible escape (`\n`, `\x1b`, `\u2028`). */
export function escapeControl(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const named = NAMED[c];
    if (named) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
  });
}

const sgr = (on: boolean, code: number, text: string): string => (on ? `\x1b[${code}m${text}\x1b[0m` : text);

/** `HH:MM:SS` of the record's time, in local time (the clock of whoever reads the terminal). */
export function clockOf(time: unknown, now: () => Date = () => new Date()): string {
  const parsed = typeof time === 'string' || typeof time === 'number' ? new Date(time) : now();
  const d = Number.isNaN(parsed.getTime()) ? now() : parsed;
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

function valueText(value: unknown): string {
  const text =
    typeof value === 'string'
      ? /^[\w.:/@+?=&%~-]+$/.test(value)
        ? value
        : JSON.stringify(value)
      : (JSON.stringify(value) ?? String(value));
  const bounded = text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE)}…` : text;
  return escapeControl(bounded);
}

/** Shown with the message and below it (errorOf), not as `key=value`. */
const isShownAsError = (key: string, value: unknown): boolean =>
  (key === 'err' && typeof value === 'object' && value !== null) ||
  (key === 'stack' && typeof value === 'string');

function fieldsText(record: LogRecord): string {
  const keys = Object.keys(record).filter(
    (k) => !SHOWN_ELSEWHERE.has(k) && record[k] !== undefined && !isShownAsError(k, record[k]),
  );
  const shown = keys.slice(0, MAX_FIELDS).map((k) => `${escapeControl(k)}=${valueText(record[k])}`);
  if (keys.length > MAX_FIELDS) shown.push(`+${keys.length - MAX_FIELDS} more`);
  return shown.join(' ');
}

interface ErrorFields {
  readonly summary: string;
  readonly stack: readonly string[];
}

/** pino's serialized `err` ({type, message, stack}) or Nest's `stack` string. */
function errorOf(record: LogRecord): ErrorFields | null {
  const err = record.err;
  if (err && typeof err === 'object') {
    const { type, message, stack } = err as Record<string, unknown>;
    const summary = `${typeof type === 'string' ? type : 'Error'}: ${String(message ?? '')}`;
    return { summary, stack: typeof stack === 'string' ? stack.split('\n').slice(1) : [] };
  }
  if (typeof record.stack === 'string') return { summary: '', stack: record.stack.split('\n').slice(1) };
  return null;
}

/**
 * One record as terminal text: a line, plus an error's stack frames on indented lines after it
 * (indented, so no frame can be taken for a log line; each escaped like the message).
 */
export function prettyLine(record: LogRecord, options: PrettyOptions): string {
  const { color } = options;
  const level = typeof record.level === 'string' ? escapeControl(record.level) : 'info';
  const levelColor = Object.hasOwn(LEVEL_COLOR, level) ? LEVEL_COLOR[level] : undefined;
  const app = escapeControl(typeof record.app === 'string' ? record.app : '');
  const context =
    typeof record.context === 'string' ? sgr(color, 2, `[${escapeControl(record.context)}]`) + ' ' : '';
  const err = errorOf(record);
  const msg = typeof record.msg === 'string' ? record.msg : (JSON.stringify(record.msg) ?? '');
  const message = [msg, err?.summary ?? '']
    .filter((part) => part !== '')
    .map(escapeControl)
    .join(' ');
  const fields = fieldsText(record);
  const head = [
    sgr(color, 2, clockOf(record.time)),
    sgr(color && levelColor !== undefined, levelColor ?? 0, level.toUpperCase().padEnd(5)),
    sgr(color && options.appColor !== undefined, options.appColor ?? 0, app.padEnd(options.appWidth ?? 0)),
    `${context}${message}`,
  ].join(' ');
  const tail = fields ? ` ${sgr(color, 2, fields)}` : '';
  const frames = (err?.stack ?? []).map((frame) => `    ${escapeControl(frame.trim())}`);
  return [head + tail, ...frames].join('\n') + '\n';
}
