import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { hashPassword } from '#libs/auth';
import { adminExists, type Database, findUserByEmail, insertConsoleUser } from '#libs/db';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { type ConsoleSettings } from '../console-settings.js';
import { nanosOf } from '../credits.js';
import { DB, SETTINGS } from '../tokens.js';
import { SetupTokens } from './setup-token.store.js';

/**
 * The first admin: from CONSOLE_ADMIN_EMAIL + CONSOLE_ADMIN_PASSWORD when set (created once, when
 * no user has that email), else, while no admin exists, a one-time setup link in the log.
 * There is no default password.
 */
@Injectable()
export class AdminBootstrap implements OnApplicationBootstrap {
  private readonly logger = new Logger('Console');

  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
    private readonly tokens: SetupTokens,
    private readonly audit: AuditTrail,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.run();
    } catch (err) {
      // The console still serves (health, sign-in once Postgres is back); say what to do.
      this.logger.warn(
        `could not check for a first admin: ${(err as Error).message}. Is the database migrated?`,
      );
    }
  }

  /** Returns the setup link it printed, if any (tests read it). */
  async run(): Promise<string | null> {
    const admin = this.settings.bootstrapAdmin;
    if (admin) {
      if (await findUserByEmail(this.db, admin.email)) return null;
      const created = await insertConsoleUser(this.db, {
        email: admin.email,
        passwordHash: await hashPassword(admin.password),
        role: 'admin',
        groups: null,
        grantNanos: nanosOf(this.settings.defaultGrantCredits),
      });
      if (created)
        await this.audit.record(
          { actor: { kind: 'system', id: 'CONSOLE_ADMIN_EMAIL' }, origin: {} },
          {
            action: 'setup.admin',
            target: { type: 'user', id: created.id },
            after: { email: admin.email.toLowerCase(), role: 'admin' },
          },
        );
      this.logger.log(
        `created the admin ${admin.email.toLowerCase()} from CONSOLE_ADMIN_EMAIL; sign in at ${this.settings.publicUrl}`,
      );
      return null;
    }
    if (await adminExists(this.db)) return null;
    const link = `${this.settings.publicUrl}/setup?token=${await this.tokens.issue()}`;
    // The link is a field of its own (shown once, not twice, in a pretty line), so `npm start` can
    // put it in its banner without reading prose. CONSOLE_ADMIN_EMAIL/PASSWORD are the other way.
    this.logger.log({
      msg: 'no admin yet: open setup_url (one-time, 24 h) to create one',
      setup_url: link,
    });
    return link;
  }
}
