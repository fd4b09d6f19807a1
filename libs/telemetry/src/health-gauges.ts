import { ATTR } from './instruments.js';
import { type GatewayMetrics } from './metrics.js';

/** Resolves when the dependency answered; rejects (or never settles) when it did not. */
export type DependencyCheck = () => Promise<unknown>;

/** A healthy Redis or Postgres answers in milliseconds; a scrape usually waits 10 s. */
const CHECK_WAIT_MS = 1_000;

/** Whether `check` answered within `waitMs`. */
export async function answers(check: DependencyCheck, waitMs = CHECK_WAIT_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      check().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => (timer = setTimeout(resolve, waitMs, false).unref())),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `gateway.dependency.up` per dependency (`redis`, `postgres`): each check runs when metrics are
 * collected (a scrape, an OTLP push), never per request. One per app, made by its module; the
 * gauge stops with the app.
 */
export class DependencyGauges {
  private readonly stop: () => void;

  constructor(
    metrics: GatewayMetrics,
    checks: Readonly<Record<string, DependencyCheck>>,
    waitMs = CHECK_WAIT_MS,
  ) {
    const entries = Object.entries(checks).map(([name, check]) => ({
      check,
      attrs: { [ATTR.dependency]: name },
    }));
    this.stop = metrics.enabled
      ? metrics.observe('dependencyUp', async (observe) => {
          const up = await Promise.all(entries.map(({ check }) => answers(check, waitMs)));
          entries.forEach(({ attrs }, i) => observe(up[i] ? 1 : 0, attrs));
        })
      : () => undefined;
  }

  onApplicationShutdown(): void {
    this.stop();
  }
}

/** Per provider with a refreshed credential, the last refresh's failure (null when it worked). */
export interface CredentialStates {
  failures(): Iterable<readonly [providerId: string, failure: string | null]>;
}

/**
 * `gateway.credentials.refresh_failing` per provider whose credential is a refreshed token (Entra
 * ID, Google, AWS): 1 while the last refresh failed, read from the credentials when collected.
 */
export class CredentialGauge {
  private readonly stop: () => void;

  constructor(metrics: GatewayMetrics, credentials: CredentialStates) {
    this.stop = metrics.enabled
      ? metrics.observe('credentialsRefreshFailing', (observe) => {
          for (const [providerId, failure] of credentials.failures())
            observe(failure === null ? 0 : 1, { [ATTR.providerId]: providerId });
        })
      : () => undefined;
  }

  onApplicationShutdown(): void {
    this.stop();
  }
}
