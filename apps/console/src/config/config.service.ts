import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import {
  type Catalog,
  CatalogSnapshot,
  configDocumentOf,
  type ConfigIssue,
  credentialOrigins,
  type Env,
  type GatewayConfig,
  LIVE_SECTIONS,
  type ProviderConfig,
  type SecretBinding,
} from '#libs/config';
import {
  announceConfigVersion,
  appendVersion,
  composeDocument,
  ConfigConflictError,
  keyringOf,
  listVersions,
  liveSectionsOf,
  openSecrets,
  readHead,
  readVersion,
  secretHints,
  secretIdsOf,
  storeSecret,
  validateLive,
} from '#libs/config-store';
import { type ConfigVersionSource, type Database } from '#libs/db';
import { type RedisClient, type RedisKeys } from '#libs/redis';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { ApiError, notFound } from '../http/api-error.js';
import { pageOf } from '../http/page.js';
import { ANNOUNCE_REDIS, CATALOG, DB, ENV, REDIS_KEYS } from '../tokens.js';
import { credentialIssues } from './credential-authority.js';
import { checkProviderEntry } from './provider-check.js';
import { yamlErrorText } from './yaml-error.js';

export interface ConfigView {
  /** `database`: edited here; `file`: the file is the truth and this is read-only. */
  readonly source: 'database' | 'file';
  readonly editable: boolean;
  /** The version serving on this console (0: the file, with no store). */
  readonly version: number;
  readonly author: string | null;
  readonly createdAt: string | null;
  readonly comment: string | null;
  /** Providers, models and groups as entered; keys only as `api_key_secret` ids. */
  readonly document: Record<string, unknown>;
  /** Stored secret id -> its hint (`sk-...abcd`): never the value. */
  readonly secrets: Record<string, string>;
}

export interface ConfigCheck {
  readonly ok: boolean;
  readonly issues: ConfigIssue[];
  /** Saved anyway only when acknowledged: groups left with no model any provider can serve. */
  readonly warnings: string[];
}

const MAX_ISSUES_IN_MESSAGE = 5;

/** The configuration as operators change it live: versions, checks, secrets, import and export. */
@Injectable()
export class ConfigService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(ANNOUNCE_REDIS) private readonly redis: RedisClient,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(ENV) private readonly env: Env,
    private readonly audit: AuditTrail,
  ) {}

  private get source(): 'database' | 'file' {
    return this.catalog.config.config.source;
  }

  private fileDocument(): unknown {
    return configDocumentOf(this.catalog.config) ?? {};
  }

  async current(): Promise<ConfigView> {
    if (this.source === 'file') return this.fileView();
    const head = await readHead(this.db);
    if (!head) return this.fileView();
    const document = head.document as Record<string, unknown>;
    return {
      source: 'database',
      editable: true,
      version: head.version,
      author: head.author,
      createdAt: head.created_at.toISOString(),
      comment: head.comment,
      document,
      secrets: await this.hintsOf(document),
    };
  }

  private async fileView(): Promise<ConfigView> {
    const document = liveSectionsOf(this.fileDocument()) as Record<string, unknown>;
    return {
      source: this.source,
      editable: false,
      version: this.catalog.version,
      author: null,
      createdAt: null,
      comment: null,
      document,
      secrets: {},
    };
  }

  /** A page of versions, newest first; `nextCursor` carries the page's oldest version. */
  async versions(q: { readonly cursor?: number | undefined; readonly limit: number }) {
    const rows = await listVersions(this.db, q.limit + 1, q.cursor);
    const page = pageOf(
      rows,
      q.limit,
      (r) => [r.version],
      (r) => ({
        ...r,
        created_at: r.created_at.toISOString(),
      }),
    );
    return { versions: page.items, nextCursor: page.nextCursor };
  }

  async version(version: number): Promise<Record<string, unknown>> {
    const row = await readVersion(this.db, version);
    if (!row) throw notFound(`Configuration version ${version}`);
    return { ...row, created_at: row.created_at.toISOString() };
  }

  /**
   * The one schema's verdict, who may make the change (credential-authority.ts), plus what would
   * be saved but not servable. `base`: the version the change is made on (its providers are what
   * the change is compared with); absent: the newest.
   */
  async check(document: Record<string, unknown>, admin: boolean, base?: number): Promise<ConfigCheck> {
    return (await this.verdict(document, admin, base)).check;
  }

  /** The check, and whether it refused the caller a credential (a refusal the trail records). */
  private async verdict(
    document: Record<string, unknown>,
    admin: boolean,
    base?: number,
  ): Promise<{ check: ConfigCheck; credentialRefused: boolean }> {
    const refusal = (issues: ConfigIssue[], credentialRefused = false) => ({
      check: { ok: false, issues, warnings: [] },
      credentialRefused,
    });
    const checked = validateLive(this.fileDocument(), document);
    if (!checked.ok) return refusal(checked.issues);
    const keyring = keyringOf(this.env.secrets);
    const stored = await openSecrets(this.db, keyring, secretIdsOf(checked.config));
    const unknownSecrets = [...stored.failures].map(([id, why]) => ({
      path: 'providers',
      message: `api_key_secret ${id}: ${why}`,
    }));
    if (unknownSecrets.length > 0) return refusal(unknownSecrets);
    const refused = await this.credentialIssues(checked.config, stored.bindings, admin, base);
    if (refused.length > 0) return refusal(refused, true);
    const snapshot = new CatalogSnapshot(checked.config, this.env.providerKeys, 0, stored);
    // Only what this change does: a group that already served nothing is not news.
    const serves = (
      c: { groups: CatalogSnapshot['groups']; servedModelIds: ReadonlySet<string> },
      g: string,
    ) => [...(c.groups.get(g) ?? [])].some((id) => c.servedModelIds.has(id));
    const current = this.catalog.snapshot();
    const warnings = [...snapshot.groups.keys()].flatMap((name) =>
      serves(snapshot, name) || (current.groups.has(name) && !serves(current, name))
        ? []
        : [`group ${name} would have no model that an enabled provider with its key serves`],
    );
    return { check: { ok: true, issues: [], warnings }, credentialRefused: false };
  }

  /** Credentials the providers of `config` would send, checked against what `admin` may do. */
  private async credentialIssues(
    config: GatewayConfig,
    bindings: ReadonlyMap<string, SecretBinding | null>,
    admin: boolean,
    base?: number,
  ) {
    return credentialIssues({
      before: await this.savedProviders(base),
      after: config.providers.map((provider, i) => ({ path: `providers[${i}]`, provider })),
      admin,
      keyVars: this.env.providerKeyVars,
      ownSecretVar: config.console.oidc?.client_secret_env,
      bindings,
    });
  }

  /**
   * The providers of version `base` (the newest when absent), as a change is compared with them;
   * none when that version does not read (a non-admin may then add no credential it does not own).
   */
  async savedProviders(base?: number): Promise<readonly ProviderConfig[]> {
    if (this.source === 'file') return this.catalog.config.providers;
    const row = base === undefined ? await readHead(this.db) : await readVersion(this.db, base);
    if (!row) return this.catalog.config.providers;
    const checked = validateLive(this.fileDocument(), row.document);
    return checked.ok ? checked.config.providers : [];
  }

  async save(
    input: {
      base_version: number;
      document: Record<string, unknown>;
      comment?: string | undefined;
      acknowledge_warnings: boolean;
    },
    author: string,
    source: ConfigVersionSource,
    by: AuditBy,
    admin: boolean,
  ): Promise<{ version: number; warnings: string[] }> {
    this.requireEditable();
    const extra = Object.keys(input.document).filter(
      (k) => !(LIVE_SECTIONS as readonly string[]).includes(k),
    );
    if (extra.length > 0)
      throw new ApiError(
        'invalid_request',
        `Invalid document: ${extra.join(', ')} cannot be changed here (only ${LIVE_SECTIONS.join(', ')}; the rest is the file's).`,
      );
    const { check, credentialRefused } = await this.verdict(input.document, admin, input.base_version);
    if (!check.ok) {
      const shown = check.issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
      const more = check.issues.length - shown.length;
      const message = `Invalid configuration: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`;
      // Who tried to make the gateway send a credential where they may not: on the trail, by reason.
      if (credentialRefused)
        await this.audit.refused(by, {
          action: source === 'import' ? 'config.import' : 'config.save',
          target: { type: 'config', id: String(input.base_version) },
          reason: message,
        });
      throw new ApiError('invalid_request', message);
    }
    if (check.warnings.length > 0 && !input.acknowledge_warnings)
      throw new ApiError(
        'invalid_request',
        `Not saved: ${check.warnings.join('; ')}. Save with acknowledge_warnings to keep it anyway.`,
      );
    let version: number;
    try {
      version = await appendVersion(this.db, {
        base: input.base_version,
        document: input.document,
        source,
        author,
        comment: input.comment ?? null,
      });
    } catch (err) {
      if (err instanceof ConfigConflictError) throw new ApiError('conflict', err.message);
      throw err;
    }
    // appendVersion commits its own transaction: the version is recorded right after it. The
    // document before is version base_version, kept whole in config_versions.
    await this.audit.record(by, {
      action: source === 'import' ? 'config.import' : 'config.save',
      target: { type: 'config', id: String(version) },
      before: { version: input.base_version },
      after: { version, comment: input.comment ?? null, document: input.document },
    });
    // Postgres holds it: a lost notice only waits for each app's next check (1 s).
    await announceConfigVersion(this.redis, this.keys, version).catch(() => undefined);
    return { version, warnings: check.warnings };
  }

  /**
   * Stores a key entered for one provider, bound to that provider and the origins its settings
   * send credentials to: no app sends it anywhere else (entering it again makes a new binding).
   */
  async storeSecret(
    input: { value: string; provider: Record<string, unknown> },
    author: string,
    by: AuditBy,
  ): Promise<{ id: string; hint: string }> {
    this.requireEditable();
    const keyring = keyringOf(this.env.secrets);
    if (!keyring)
      throw new ApiError(
        'invalid_request',
        'GATEWAY_SECRET_KEYS is not set: keys cannot be stored encrypted. Set it (docs/configuration.md), or use api_key_env.',
      );
    const checked = checkProviderEntry(this.fileDocument(), { models: ['binding'], ...input.provider });
    if (!checked.ok) {
      const shown = checked.issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
      throw new ApiError('invalid_request', `Invalid provider: ${shown.join('; ')}.`);
    }
    const binding = { provider: checked.provider.id, origins: credentialOrigins(checked.provider) };
    const stored = await storeSecret(this.db, keyring, input.value, binding, author);
    // Its id, hint and binding only: the value never reaches the audit trail.
    await this.audit.record(by, {
      action: 'config.secret.store',
      target: { type: 'secret', id: stored.id },
      after: { id: stored.id, hint: stored.hint, provider: binding.provider, origins: binding.origins },
    });
    return stored;
  }

  /** The whole configuration as a gateway.yaml: the file's settings with the newest live sections. */
  async exportYaml(): Promise<string> {
    const view = await this.current();
    return stringifyYaml(composeDocument(this.fileDocument(), view.document));
  }

  /** A gateway.yaml's live sections as a new version; its other settings stay the file's. */
  async importYaml(
    input: { base_version: number; yaml: string; comment?: string | undefined },
    author: string,
    by: AuditBy,
    admin: boolean,
  ): Promise<{ version: number; warnings: string[]; ignored: string[] }> {
    let doc: unknown;
    try {
      doc = parseYaml(input.yaml);
    } catch (err) {
      throw new ApiError('invalid_request', `Invalid yaml: ${yamlErrorText(err)}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      throw new ApiError('invalid_request', 'Invalid yaml: expected a gateway.yaml document (a mapping).');
    const ignored = Object.keys(doc).filter((k) => !(LIVE_SECTIONS as readonly string[]).includes(k));
    const saved = await this.save(
      {
        base_version: input.base_version,
        document: liveSectionsOf(doc) as Record<string, unknown>,
        comment: input.comment,
        acknowledge_warnings: true,
      },
      author,
      'import',
      by,
      admin,
    );
    return { ...saved, ignored };
  }

  private requireEditable(): void {
    if (this.source === 'file')
      throw new ApiError(
        'conflict',
        'The configuration is managed in its file (config.source: file): change the file instead.',
      );
  }

  private async hintsOf(document: Record<string, unknown>): Promise<Record<string, string>> {
    const providers = Array.isArray(document.providers) ? (document.providers as unknown[]) : [];
    const ids = providers.flatMap((p) => {
      const id = (p as { api_key_secret?: unknown })?.api_key_secret;
      return typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id) ? [id] : [];
    });
    return Object.fromEntries(await secretHints(this.db, ids));
  }
}
