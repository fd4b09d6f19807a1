/** Names and bounds of the monthly request_logs partitions (UTC months). Pure. */
export interface LogPartition {
  /** e.g. `request_logs_p2026_01`. */
  readonly name: string;
  /** Inclusive lower bound, first instant of the month (UTC). */
  readonly from: Date;
  /** Exclusive upper bound, first instant of the next month (UTC). */
  readonly to: Date;
}

export const REQUEST_LOGS_DEFAULT_PARTITION = 'request_logs_default';
const NAME_PATTERN = /^request_logs_p(\d{4})_(\d{2})$/;

export function logPartitionOf(year: number, monthIndex: number): LogPartition {
  const from = new Date(Date.UTC(year, monthIndex, 1));
  const to = new Date(Date.UTC(year, monthIndex + 1, 1));
  const mm = String(from.getUTCMonth() + 1).padStart(2, '0');
  return { name: `request_logs_p${from.getUTCFullYear()}_${mm}`, from, to };
}

/** The partition holding `now`, then the `monthsAhead` following ones. */
export function logPartitionsAround(now: Date, monthsAhead: number): LogPartition[] {
  const out: LogPartition[] = [];
  for (let i = 0; i <= monthsAhead; i++)
    out.push(logPartitionOf(now.getUTCFullYear(), now.getUTCMonth() + i));
  return out;
}

/** Parses a monthly partition name back into its bounds, or null for any other table. */
export function parseLogPartitionName(name: string): LogPartition | null {
  const m = NAME_PATTERN.exec(name);
  if (!m) return null;
  return logPartitionOf(Number(m[1]), Number(m[2]) - 1);
}
