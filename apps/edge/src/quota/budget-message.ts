import { type Budget } from '#libs/quota';

const CALENDAR = { day: 'daily', week: 'weekly', month: 'monthly', lifetime: 'lifetime' } as const;
const ROLLING = { day: 'rolling 24-hour', week: 'rolling 7-day', month: 'rolling 30-day' } as const;

/** Nanocredits as credits with at least two decimals (5.00, 0.125): exact, through bigint. */
export function creditsText(nanos: string): string {
  const n = BigInt(nanos);
  const frac = (n % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '').padEnd(2, '0');
  return `${n / 1_000_000_000n}.${frac}`;
}

const isoSeconds = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The `insufficient_quota` message of a spent budget: whose, which period, how much, which models,
 * and when spend next leaves the window, so the client knows whether and when to retry.
 */
export function budgetMessage(b: Budget, resetsAtMs: number | null): string {
  const whose = b.keyId !== null ? "this key's" : b.teamId ? "your team's" : "your account's";
  const period = b.window === 'rolling' && b.period !== 'lifetime' ? ROLLING[b.period] : CALENDAR[b.period];
  const models =
    b.modelGroup !== null
      ? ` for the models of group ${b.modelGroup}`
      : b.models !== null
        ? ` for ${b.models.join(', ')}`
        : '';
  const when =
    resetsAtMs === null
      ? b.period === 'lifetime'
        ? 'it does not reset'
        : 'it frees up as its spend ages out'
      : b.window === 'rolling'
        ? `its oldest spend leaves the window at ${isoSeconds(resetsAtMs)}`
        : `it resets at ${isoSeconds(resetsAtMs)}`;
  return `Quota exceeded: ${whose} ${period} budget of ${creditsText(b.limitNanos)} credits${models} is spent; ${when}.`;
}
