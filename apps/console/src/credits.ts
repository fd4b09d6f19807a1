/** 1 credit = 1e9 nanocredits. The API speaks decimal credits; storage and arithmetic use bigint nanos. */
export const NANOS_PER_CREDIT = 1_000_000_000n;

/** Nanocredits (bigint, or int8 as string) as a decimal number of credits, exact to 1e-9 for sane sums. */
export function creditsOf(nanos: bigint | string | number): number {
  const n = BigInt(nanos);
  const whole = n / NANOS_PER_CREDIT;
  const frac = n % NANOS_PER_CREDIT;
  return Number(whole) + Number(frac) / 1e9;
}

/** A decimal credit amount as nanocredits, rounded to the nearest nanocredit. */
export function nanosOf(credits: number): bigint {
  if (!Number.isFinite(credits)) throw new RangeError(`not a finite credit amount: ${credits}`);
  // Through the decimal string, so 0.1 becomes exactly 100000000 and not 99999999.
  const [int, frac = ''] = Math.abs(credits).toFixed(9).split('.');
  const nanos = BigInt(int!) * NANOS_PER_CREDIT + BigInt(frac.padEnd(9, '0'));
  return credits < 0 ? -nanos : nanos;
}
