import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { Client } from 'undici';
import {
  type Catalog,
  CatalogSnapshot,
  configDocumentOf,
  credentialOrigins,
  type Env,
  type GatewayConfig,
  type ProviderConfig,
  type ProviderRuntime,
} from '#libs/config';
import { keyringOf, openSecrets, secretHint } from '#libs/config-store';
import { CredentialUnavailableError, failureReason, type UpstreamAuth } from '#libs/credentials';
import { type Database } from '#libs/db';
import { ambientCredential, descriptorOf } from '#libs/providers';
import {
  firstBytes,
  outcomeOfCredential,
  outcomeOfError,
  outcomeOfStatus,
  probeErrorText,
  probeHeaders,
  probeUrl,
  redactSecrets,
} from '#libs/probe';
import { type ProbeOutcome } from '#libs/routing';
import { type AuditBy } from '../audit/audit-context.js';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { ApiError } from '../http/api-error.js';
import { CATALOG, DB, ENV } from '../tokens.js';
import { ConfigService } from './config.service.js';
import { credentialIssues } from './credential-authority.js';
import { checkProviderEntry } from './provider-check.js';
import { ProviderTestThrottle } from './provider-test-throttle.store.js';

/** What the test action shows: the router's verdict on the answer, and the upstream's own words. */
export interface ProviderTestResult {
  /** Whether the router would count the provider up on this answer (a 404 or 429 proves it reachable). */
  readonly ok: boolean;
  /** The upstream's HTTP status; null when no answer came (refused connection, timeout, no credential). */
  readonly status: number | null;
  readonly latencyMs: number | null;
  /** Why it failed, or what a non-2xx answer said, in the vendor's words (bounded); null on a 2xx. */
  readonly error: string | null;
}

/** A cloud's first token (Entra ID, Google, the AWS chain) may take a few round trips. */
const CREDENTIAL_TIMEOUT_MS = 10_000;
/** Of an error answer, the part its words are read from; of a success, what is read at most. */
const ERROR_BYTES = 4096;
const MAX_BODY_BYTES = 256 * 1024;
const MAX_ISSUES_IN_MESSAGE = 5;

/** Who asks for a test: what they may make the gateway send (credential-authority.ts), and for the trail. */
export interface ProviderTester {
  /** The throttle's subject: a user id or a token's. */
  readonly caller: string;
  readonly admin: boolean;
  readonly by: AuditBy;
}

/**
 * The console's "test" action: the router's probe of one provider (its model listing; Bedrock's
 * ListFoundationModels), sent once with settings and a key that are not saved yet. It sends a
 * credential only where the caller could have saved it: a key typed in the form anywhere; a
 * stored key, an environment variable or the gateway's cloud identity only as a save would allow.
 * Every test is throttled per caller and audited, refusals included.
 */
@Injectable()
export class ProviderTestService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(ENV) private readonly env: Env,
    private readonly config: ConfigService,
    private readonly throttle: ProviderTestThrottle,
    private readonly audit: AuditTrail,
  ) {}

  async test(
    input: { provider: Record<string, unknown>; key?: string | undefined },
    tester: ProviderTester,
  ): Promise<ProviderTestResult> {
    await this.throttle.admit(tester.caller);
    const settings = { ...input.provider, ...(input.key !== undefined && { key: secretHint(input.key) }) };
    let result: ProviderTestResult;
    let origins: string[] = [];
    try {
      const checked = this.checked(input.provider);
      origins = credentialOrigins(checked.provider);
      const provider = await this.runtimeOf(checked, input.key, tester.admin);
      result = await this.run(provider, input.key);
    } catch (err) {
      const reason = err instanceof ApiError ? err.message : 'internal error';
      await this.record(tester.by, settings, origins, { refused: reason });
      throw err;
    }
    await this.record(tester.by, settings, origins, result);
    return result;
  }

  private async run(provider: ProviderRuntime, key: string | undefined): Promise<ProviderTestResult> {
    if (provider.disabledReason !== null)
      return { ok: false, status: null, latencyMs: null, error: provider.disabledReason };
    // A key typed in the form is the credential; without one, the cloud's own as the router gets it.
    const auth =
      key === undefined
        ? ambientCredential(provider, this.env.secrets, {
            onFailure: () => undefined,
            onRecovery: () => undefined,
          })
        : null;
    const sent: string[] = [];
    try {
      const result = await this.probe(provider, auth, sent);
      // Whatever credential went out (a key, a cloud token, a signature) never comes back in the words.
      return result.error === null
        ? result
        : { ...result, error: redactSecrets(result.error, [provider.apiKey, ...sent]) };
    } finally {
      auth?.close();
    }
  }

  /** Who tested what, where, and what came of it (the settings hold no key: at most a typed key's hint). */
  private async record(
    by: AuditBy,
    settings: Record<string, unknown>,
    origins: readonly string[],
    outcome: ProviderTestResult | { refused: string },
  ): Promise<void> {
    const id = typeof settings.id === 'string' ? settings.id.slice(0, 200) : '(none)';
    await this.audit.record(by, {
      action: 'config.provider.test',
      target: { type: 'provider', id },
      after: { settings, origins, outcome },
    });
  }

  /** The entry checked by the one schema, as it would be saved. */
  private checked(entry: Record<string, unknown>): { config: GatewayConfig; provider: ProviderConfig } {
    const checked = checkProviderEntry(configDocumentOf(this.catalog.config) ?? {}, entry);
    if (checked.ok) return checked;
    const shown = checked.issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
    throw new ApiError('invalid_request', `Invalid provider: ${shown.join('; ')}.`);
  }

  /** The entry as the router would run it, once who may send what allows it: its key resolved. */
  private async runtimeOf(
    { config, provider }: { config: GatewayConfig; provider: ProviderConfig },
    key: string | undefined,
    admin: boolean,
  ): Promise<ProviderRuntime> {
    if (key !== undefined) {
      const { keys } = descriptorOf(provider.type);
      if (keys !== true) throw new ApiError('invalid_request', `Invalid key: ${keys.refusal}.`);
      return { ...provider, apiKey: key, disabledReason: null };
    }
    const ids = provider.api_key_secret === undefined ? [] : [provider.api_key_secret];
    const stored = await openSecrets(this.db, keyringOf(this.env.secrets), ids);
    await this.authorize(provider, stored.bindings, admin);
    return new CatalogSnapshot(config, this.env.providerKeys, 0, stored).providers.get(provider.id)!;
  }

  /** The test sends what a save of this entry would: refused (403) when the caller could not save it. */
  private async authorize(
    provider: ProviderConfig,
    bindings: Awaited<ReturnType<typeof openSecrets>>['bindings'],
    admin: boolean,
  ): Promise<void> {
    const issues = credentialIssues({
      before: await this.config.savedProviders(),
      after: [{ path: 'provider', provider }],
      admin,
      keyVars: this.env.providerKeyVars,
      ownSecretVar: this.catalog.config.console.oidc?.client_secret_env,
      bindings,
    });
    if (issues.length > 0)
      throw new ApiError(
        'forbidden',
        `Not tested: ${issues
          .slice(0, MAX_ISSUES_IN_MESSAGE)
          .map((i) => `${i.path}: ${i.message}`)
          .join('; ')}.`,
      );
  }

  /** One GET, as the router's ProbeClient sends it, bounded by the router's probe timeout. */
  /** `sent`: the credential's header values as they went out, filled in for redaction. */
  private async probe(
    provider: ProviderRuntime,
    auth: UpstreamAuth | null,
    sent: string[],
  ): Promise<ProviderTestResult> {
    const timeoutMs = this.catalog.config.router.probe_timeout_ms;
    const url = probeUrl(provider);
    const headers = probeHeaders(provider);
    if (auth !== null) {
      try {
        const signed = await withTimeout(
          Promise.resolve(auth.headers({ method: 'GET', url: url.href, headers, body: '' })),
          CREDENTIAL_TIMEOUT_MS,
        );
        Object.assign(headers, signed);
        sent.push(...Object.values(signed).flatMap(credentialParts));
      } catch (err) {
        const reason = err instanceof CredentialUnavailableError ? err.reason : failureReason(err);
        return failed(outcomeOfCredential(reason));
      }
    }
    const client = new Client(url.origin, {
      connect: { timeout: timeoutMs },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      allowH2: false,
    });
    const signal = AbortSignal.timeout(timeoutMs);
    const started = performance.now();
    try {
      const res = await client.request({
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        headers,
        signal,
      });
      const latencyMs = Math.round(performance.now() - started);
      if (res.statusCode < 400) {
        await res.body.dump({ limit: MAX_BODY_BYTES, signal });
        const outcome = outcomeOfStatus(res.statusCode, latencyMs);
        return { ok: outcome.ok, status: res.statusCode, latencyMs, error: null };
      }
      const body = await firstBytes(res.body, ERROR_BYTES);
      const outcome = outcomeOfStatus(res.statusCode, latencyMs);
      const words = probeErrorText(provider, res.statusCode, res.headers, body);
      return { ok: outcome.ok, status: res.statusCode, latencyMs, error: words ?? `HTTP ${res.statusCode}` };
    } catch (err) {
      return failed(outcomeOfError(err, signal.aborted, timeoutMs));
    } finally {
      await client.destroy().catch(() => undefined);
    }
  }
}

/** A probe that got no answer: the router's reason, without its `probe: ` prefix (this is no scheduled probe). */
function failed(outcome: ProbeOutcome): ProviderTestResult {
  const reason = outcome.ok ? outcome.detail : outcome.reason;
  return { ok: false, status: null, latencyMs: null, error: reason.replace(/^probe: /, '') };
}

/**
 * The secret parts of a credential header: a bearer token, a signature, a session token. The
 * scheme's words (`Bearer`, `Credential=`, `SignedHeaders=`) and short fields (a date, a region)
 * are left out, else every vendor message naming a signature would be redacted.
 */
function credentialParts(value: string): string[] {
  return value.split(/[\s,;=/]+/).filter((part) => part.length >= 16);
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CredentialUnavailableError(`no credential within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
