import { type Kysely } from 'kysely';
import { type Catalog, CatalogSnapshot, type ProviderKeys } from '#libs/config';
import { type Database } from '#libs/db';
import { duplicateRedis, type RedisClient, type RedisKeys } from '#libs/redis';
import { type Keyring } from './keyring.js';
import { liveSectionsOf, secretIdsOf, validateLive } from './live-document.js';
import { openSecrets } from './secrets.repository.js';
import { headVersion, readVersion, seedIfEmpty } from './versions.repository.js';

export interface FeedLogger {
  debug(message: string): void;
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface ConfigFeedOptions {
  readonly db: Kysely<Database>;
  readonly redis: RedisClient;
  readonly keys: RedisKeys;
  /** The live configuration this feed keeps current. */
  readonly catalog: Catalog;
  /** The file as written, for its server settings and, at first boot, its live sections. */
  readonly fileDocument: unknown;
  readonly filePath: string;
  /** The variables providers' `api_key_env` may read (Env.providerKeys). */
  readonly providerKeys: ProviderKeys;
  readonly keyring: Keyring | null;
  readonly logger: FeedLogger;
  /** How often the newest version is checked, so a missed notice delays a change by this at most. */
  readonly pollMs?: number;
}

/** The newest version is checked this often: the longest a lost notice delays a change. */
export const DEFAULT_POLL_MS = 1_000;
/** The longest start() waits for the subscription before relying on the periodic check. */
const SUBSCRIBE_WAIT_MS = 2_000;

/**
 * Keeps an app's Catalog on the newest configuration version in Postgres: loaded at start (the
 * file seeds an empty database), then on every pub/sub notice and on a periodic check of the
 * newest version number. Versions load one at a time and only forward, so requests that took a
 * snapshot finish on it while new ones get the next. A version that fails to load (Postgres away,
 * a document an older app cannot read) leaves the current one serving and is retried.
 */
export class ConfigFeed {
  private sub: RedisClient | null = null;
  private timer: NodeJS.Timeout | null = null;
  private loading: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Why the newest version is not the one serving, or null. */
  lastError: string | null = null;

  constructor(private readonly o: ConfigFeedOptions) {}

  /** Seeds if empty and loads the newest version; resolves even when Postgres is away (retried). */
  async start(): Promise<void> {
    try {
      if (await seedIfEmpty(this.o.db, liveSectionsOf(this.o.fileDocument), `file:${this.o.filePath}`))
        this.o.logger.log(`configuration: seeded version 1 from ${this.o.filePath}`);
      await this.refresh();
    } catch (err) {
      this.fail(
        `configuration store unreachable at start, serving the file until it is back: ${(err as Error).message}`,
      );
    }
    await this.subscribe();
    this.timer = setInterval(
      () => void this.refresh().catch((err: Error) => this.fail(err.message)),
      this.o.pollMs ?? DEFAULT_POLL_MS,
    );
    this.timer.unref();
  }

  /** Loads the newest version if it is newer than the one serving. */
  refresh(): Promise<void> {
    const next = this.loading.then(async () => {
      if (this.stopped) return;
      const head = await headVersion(this.o.db);
      if (head > this.o.catalog.version) await this.load(head, this.o.catalog.version === 0);
    });
    this.loading = next.catch(() => undefined);
    return next;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sub?.disconnect();
    this.sub = null;
    await this.loading;
  }

  /** `starting`: the first version this app serves (replacing the file it booted with). */
  private async load(version: number, starting: boolean): Promise<void> {
    const row = await readVersion(this.o.db, version);
    if (!row) return;
    const checked = validateLive(this.o.fileDocument, row.document);
    if (!checked.ok) {
      const where = checked.issues.map((i) => `${i.path}: ${i.message}`).join('; ');
      this.fail(
        `configuration version ${version} not applied (it stays at ${this.o.catalog.version}): ${where}`,
      );
      return;
    }
    const stored = await openSecrets(this.o.db, this.o.keyring, secretIdsOf(checked.config));
    this.o.catalog.swap(new CatalogSnapshot(checked.config, this.o.providerKeys, version, stored));
    // The version an app starts on is no news (the seed says so once); a change while serving is.
    const say = starting ? this.o.logger.debug.bind(this.o.logger) : this.o.logger.log.bind(this.o.logger);
    this.lastError = null;
    say(`configuration: version ${version} applied (by ${row.author}, ${row.source})`);
  }

  private fail(message: string): void {
    if (message === this.lastError) return;
    this.lastError = message;
    this.o.logger.error(message);
  }

  /**
   * Resolves once subscribed, so a change saved after start() is heard, or at the connection's
   * first error: an app starts while Redis is down, and the periodic check covers the gap.
   */
  private async subscribe(): Promise<void> {
    const name = `${this.o.keys.prefix}:config-feed`.replace(/[^\w:.-]/g, '_');
    const sub = duplicateRedis(this.o.redis, name, { autoResubscribe: true, maxRetriesPerRequest: null });
    this.sub = sub;
    sub.on('message', (channel: string) => {
      if (channel === this.o.keys.configChannel)
        void this.refresh().catch((err: Error) => this.fail(err.message));
    });
    // Errors are logged once per outage by the client.
    const unreachable = new Promise<void>((resolve) => {
      sub.once('error', () => resolve());
      // A Redis that accepts connections and never answers raises no error: start does not wait on it.
      setTimeout(resolve, SUBSCRIBE_WAIT_MS).unref();
    });
    await Promise.race([
      sub.subscribe(this.o.keys.configChannel).then(
        () => undefined,
        () => undefined,
      ),
      unreachable,
    ]);
  }
}

/** Tells every app a version was saved (the periodic check catches a notice that is lost). */
export async function announceConfigVersion(
  redis: RedisClient,
  keys: RedisKeys,
  version: number,
): Promise<void> {
  await redis.publish(keys.configChannel, String(version));
}
