import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { type Kysely } from 'kysely';
import { Client } from 'undici';
import {
  type Catalog,
  CatalogSnapshot,
  configDocumentOf,
  type Env,
  type ProviderRuntime,
} from '#libs/config';
import { keyringOf, openSecrets } from '#libs/config-store';
import {
  credentialFor,
  CredentialUnavailableError,
  failureReason,
  type UpstreamAuth,
} from '#libs/credentials';
import { type Database } from '#libs/db';
import {
  firstBytes,
  outcomeOfCredential,
  outcomeOfError,
  outcomeOfStatus,
  probeErrorText,
  probeHeaders,
  probeUrl,
} from '#libs/probe';
import { type ProbeOutcome } from '#libs/routing';
import { ApiError } from '../http/api-error.js';
import { CATALOG, DB, ENV } from '../tokens.js';
import { checkProviderEntry, withoutSecret } from './provider-check.js';

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

/**
 * The console's "test" action: the router's probe of one provider (its model listing; Bedrock's
 * ListFoundationModels), sent once with settings and a key that are not saved yet.
 */
@Injectable()
export class ProviderTestService {
  constructor(
    @Inject(DB) private readonly db: Kysely<Database>,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(ENV) private readonly env: Env,
  ) {}

  async test(input: {
    provider: Record<string, unknown>;
    key?: string | undefined;
  }): Promise<ProviderTestResult> {
    const provider = await this.runtimeOf(input.provider, input.key);
    if (provider.disabledReason !== null)
      return { ok: false, status: null, latencyMs: null, error: provider.disabledReason };
    // A key typed in the form is the credential; without one, the cloud's own as the router gets it.
    const auth =
      input.key === undefined
        ? credentialFor(provider, this.env.secrets, {
            onFailure: () => undefined,
            onRecovery: () => undefined,
          })
        : null;
    try {
      const result = await this.probe(provider, auth);
      return result.error === null
        ? result
        : { ...result, error: withoutSecret(result.error, provider.apiKey) };
    } finally {
      auth?.close();
    }
  }

  /** The entry as the router would run it: checked by the one schema, its key resolved. */
  private async runtimeOf(entry: Record<string, unknown>, key: string | undefined): Promise<ProviderRuntime> {
    const checked = checkProviderEntry(configDocumentOf(this.catalog.config) ?? {}, entry);
    if (!checked.ok) {
      const shown = checked.issues.slice(0, MAX_ISSUES_IN_MESSAGE).map((i) => `${i.path}: ${i.message}`);
      throw new ApiError('invalid_request', `Invalid provider: ${shown.join('; ')}.`);
    }
    const { config, provider } = checked;
    if (key !== undefined) {
      if (provider.type === 'vertex')
        throw new ApiError(
          'invalid_request',
          'Invalid key: type vertex authenticates with Google credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server), not a key.',
        );
      return { ...provider, apiKey: key, disabledReason: null };
    }
    const ids = provider.api_key_secret === undefined ? [] : [provider.api_key_secret];
    const stored = await openSecrets(this.db, keyringOf(this.env.secrets), ids);
    return new CatalogSnapshot(config, this.env.secrets, 0, stored).providers.get(provider.id)!;
  }

  /** One GET, as the router's ProbeClient sends it, bounded by the router's probe timeout. */
  private async probe(provider: ProviderRuntime, auth: UpstreamAuth | null): Promise<ProviderTestResult> {
    const timeoutMs = this.catalog.config.router.probe_timeout_ms;
    const url = probeUrl(provider);
    const headers = probeHeaders(provider);
    if (auth !== null) {
      try {
        const signed = auth.headers({ method: 'GET', url: url.href, headers, body: '' });
        Object.assign(headers, await withTimeout(Promise.resolve(signed), CREDENTIAL_TIMEOUT_MS));
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
