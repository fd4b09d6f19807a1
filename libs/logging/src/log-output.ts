import { type Env, type LogFormat } from '#libs/config';

/** How log lines are written: JSON objects, or short lines for a person (coloured or not). */
export interface LogOutput {
  readonly format: LogFormat;
  readonly color: boolean;
}

/** The part of Env that says how to log. */
export type LogSettings = Pick<Env, 'logLevel' | 'logFormat' | 'logColor'>;

/**
 * The one place the log format is decided. `LOG_FORMAT` wins; unset, a terminal gets pretty lines
 * and anything else (a pipe, a file, a container's log driver) JSON, so machines never have to
 * parse prose. Colour only in pretty lines, only on a terminal or under `FORCE_COLOR`, never under
 * `NO_COLOR`.
 */
export function resolveLogOutput(
  settings: Pick<LogSettings, 'logFormat' | 'logColor'>,
  stdout: { readonly isTTY?: boolean },
): LogOutput {
  const tty = stdout.isTTY === true;
  const format = settings.logFormat ?? (tty ? 'pretty' : 'json');
  return { format, color: format === 'pretty' && (settings.logColor ?? tty) };
}
