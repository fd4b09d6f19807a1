import { type ProviderRuntime } from '#libs/config';
import { descriptorOf } from '#libs/providers';
import { type ProbeOutcome } from '#libs/routing';

/**
 * The provider's own auth (as its adapter sends it on requests), so the probe proves the key
 * works too. A GET has no body: no content type. Values are secrets: never log them.
 */
export function probeHeaders(provider: ProviderRuntime): Record<string, string> {
  const headers = descriptorOf(provider.type).adapter.upstreamHeaders(provider.apiKey, {});
  delete headers['content-type'];
  return { ...headers, accept: 'application/json', 'user-agent': 'model-gateway-router' };
}

/**
 * The probed URL: probe_path is relative to base_url, which may carry a path such as /v1; for a
 * type whose settings place its URLs (Azure's deployments or v1 paths), as its adapter places it;
 * for a type whose model list is on another endpoint (Bedrock's control plane), its adapter's.
 */
export function probeUrl(provider: ProviderRuntime): URL {
  const adapter = descriptorOf(provider.type).adapter;
  if (adapter.probeUrl !== undefined) return new URL(adapter.probeUrl(provider));
  const endpoint = adapter.endpoint?.(provider);
  const path = endpoint === undefined ? provider.probe_path : endpoint.path(provider.probe_path, '');
  return new URL(`${provider.base_url}${path}`);
}

/** A provider whose credential could not be got: down, with the identity platform's reason. */
export function outcomeOfCredential(reason: string): ProbeOutcome {
  return { ok: false, reason: `credentials: ${reason}`, latencyMs: null };
}

/**
 * 2xx proves the provider up. 5xx, 401 and 403 are failures (broken, or our key is refused). Any
 * other answer (404 from a wrong probe_path, 429) still proves it reachable, so it does not count
 * against it: the edge fails over on real traffic anyway.
 */
export function outcomeOfStatus(
  status: number,
  latencyMs: number,
  refusal: string | null = null,
): ProbeOutcome {
  if (status >= 200 && status < 300) return { ok: true, detail: `probe: HTTP ${status}`, latencyMs };
  if (status >= 500 || status === 401 || status === 403)
    return { ok: false, reason: `probe: HTTP ${status}${refusal === null ? '' : ` ${refusal}`}`, latencyMs };
  return { ok: true, detail: `probe: HTTP ${status} (reachable)`, latencyMs };
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** A failed request as a stable reason: the error code (ECONNREFUSED...) rather than a message with addresses. */
export function outcomeOfError(err: unknown, timedOut: boolean, timeoutMs: number): ProbeOutcome {
  const code = (err as { code?: unknown } | null)?.code;
  if (timedOut || (typeof code === 'string' && TIMEOUT_CODES.has(code))) {
    return { ok: false, reason: `probe: timeout after ${timeoutMs}ms`, latencyMs: null };
  }
  if (typeof code === 'string' && code !== '')
    return { ok: false, reason: `probe: ${code}`, latencyMs: null };
  const message = err instanceof Error ? err.message : String(err);
  return { ok: false, reason: `probe: ${message}`, latencyMs: null };
}

/** Reads a refusal's reason only for a 401/403 of a type whose adapter words it. */
export function refusalReader(
  provider: ProviderRuntime,
):
  | ((status: number, headers: Record<string, string | string[] | undefined>, body: Buffer) => string | null)
  | null {
  const adapter = descriptorOf(provider.type).adapter;
  if (adapter.refusalReason === undefined) return null;
  return (status, headers, body) =>
    status === 401 || status === 403 ? adapter.refusalReason!(status, headers, body) : null;
}
