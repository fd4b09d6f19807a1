import { type GatewayConfig } from '#libs/config';
import { NO_LIMITS, type RateLimits } from './admission.js';

/** Each group's per-user rate limits from the config (`groups.<name>.limits`); groups without any are left out. */
export function groupRateLimits(config: Pick<GatewayConfig, 'group_limits'>): Map<string, RateLimits> {
  const out = new Map<string, RateLimits>();
  for (const [name, l] of Object.entries(config.group_limits)) {
    const limits = { rpm: l.rpm ?? null, tpm: l.tpm ?? null };
    if (limits.rpm !== null || limits.tpm !== null) out.set(name, Object.freeze(limits));
  }
  return out;
}

/** A key's own limits (nullable columns, possibly absent from an older cached key record). */
export function keyRateLimits(key: {
  readonly rpmLimit?: number | null;
  readonly tpmLimit?: number | null;
}): RateLimits {
  const rpm = key.rpmLimit ?? null;
  const tpm = key.tpmLimit ?? null;
  return rpm === null && tpm === null ? NO_LIMITS : { rpm, tpm };
}
