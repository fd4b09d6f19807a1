import type { SignableRequest, UpstreamAuth } from '#libs/credentials';

/**
 * A platform credential whose code is loaded when it starts: the cloud SDKs it builds on are
 * heavy, and every app and most tests load the registry, while few deployments use a cloud's
 * identity. A request before the load (none is sent before `start()` in practice) waits for it.
 */
export function deferredAuth(load: () => Promise<UpstreamAuth>): UpstreamAuth {
  let inner: UpstreamAuth | null = null;
  let loading: Promise<UpstreamAuth> | null = null;
  let loadFailure: string | null = null;
  let closed = false;
  const loaded = (): Promise<UpstreamAuth> =>
    (loading ??= load().then(
      (auth) => {
        inner = auth;
        if (closed) auth.close();
        return auth;
      },
      (err: unknown) => {
        loading = null;
        loadFailure = `credential code could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
        throw err;
      },
    ));
  return {
    headers: (req: SignableRequest) =>
      inner === null ? loaded().then((auth) => auth.headers(req)) : inner.headers(req),
    get failure() {
      return inner === null ? loadFailure : inner.failure;
    },
    async start() {
      const auth = await loaded().catch(() => null);
      await auth?.start();
    },
    close() {
      closed = true;
      inner?.close();
    },
  };
}
