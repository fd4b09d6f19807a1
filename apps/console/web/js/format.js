// Formatting for display. Credits arrive as decimal numbers; times as ISO strings (UTC).

const numberFmt = new Intl.NumberFormat(undefined);
const dateTimeFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const preciseTimeFmt = new Intl.DateTimeFormat(undefined, {
  dateStyle: 'medium',
  timeStyle: 'medium',
});
const shortTimeFmt = new Intl.DateTimeFormat(undefined, {
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});
const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const dayFmt = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function formatNumber(n) {
  return n === null || n === undefined ? '—' : numberFmt.format(n);
}

/** Credits with enough digits that a single cheap request does not read as zero. */
export function formatCredits(credits) {
  if (credits === null || credits === undefined) return '—';
  const n = Number(credits);
  const abs = Math.abs(n);
  const digits = abs === 0 ? 2 : abs < 0.01 ? 6 : abs < 1 ? 4 : 2;
  return n.toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: digits });
}

export function formatDateTime(iso) {
  return iso ? dateTimeFmt.format(new Date(iso)) : '—';
}

export function formatPreciseTime(iso) {
  return iso ? preciseTimeFmt.format(new Date(iso)) : '—';
}

/** Compact time for table rows: "Nov 22, 03:09:58". */
export function formatShortTime(iso) {
  return iso ? shortTimeFmt.format(new Date(iso)) : '—';
}

export function formatDate(iso) {
  return iso ? dateFmt.format(new Date(iso)) : '—';
}

/** `YYYY-MM-DD` (a UTC day) as "Nov 22". */
export function formatDay(day) {
  return dayFmt.format(new Date(`${day}T00:00:00Z`));
}

export function formatRelative(iso) {
  if (!iso) return 'never';
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const steps = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [30, 'day'],
    [12, 'month'],
  ];
  let value = -seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return rtf.format(Math.round(value), unit);
    value /= size;
  }
  return rtf.format(Math.round(value), 'year');
}

export function formatMs(ms) {
  if (ms === null || ms === undefined) return '—';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`;
}

/** Midnight UTC of the day `daysAgo` days before today, as a Date. */
export function utcDayStart(daysAgo = 0) {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - daysAgo));
}

/** Every UTC day from `from` (inclusive) to `to` (exclusive), as `YYYY-MM-DD`. */
export function daysBetween(from, to) {
  const days = [];
  for (let t = from.getTime(); t < to.getTime(); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}

/** A `datetime-local` input value (local time) <-> ISO string. */
export function toLocalInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value) {
  return value ? new Date(value).toISOString() : undefined;
}
