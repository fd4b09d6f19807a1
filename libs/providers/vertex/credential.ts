import { readFileSync } from 'node:fs';
import { type AuthClient, type gaxios } from 'google-auth-library';
import {
  type AccessToken,
  BearerTokenAuth,
  type RefresherOptions,
  type UpstreamAuth,
} from '#libs/credentials';

/** The scope Vertex AI takes (Google's own SDKs ask for it). */
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

/** The token endpoint google-auth-library sends a service account's JWT-bearer grant to. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** When the library reports no expiry (it always has so far), the token is taken for this long. */
const UNKNOWN_EXPIRY_MS = 5 * 60_000;

type Vars = Readonly<Record<string, string | undefined>>;

export type GoogleSource = 'credentials_file' | 'metadata_server';

/**
 * Which of Google's Application Default Credentials sources the environment configures: a
 * credentials file named by `GOOGLE_APPLICATION_CREDENTIALS` (a service-account key, or a
 * workload identity federation configuration, `type: external_account`, with its own STS
 * `token_url`), else the metadata server (GCE, GKE workload identity, Cloud Run; the library
 * honours `GCE_METADATA_HOST`). One source, not the whole chain: the gcloud user credentials of
 * a developer's machine are left out (a gateway must not run on someone's login), and a refused
 * key is reported as such, not as the metadata server missing behind it.
 */
export function googleSource(vars: Vars): GoogleSource {
  return vars.GOOGLE_APPLICATION_CREDENTIALS ? 'credentials_file' : 'metadata_server';
}

/**
 * google-auth-library (10 and 11) sends a service account's grant to Google's public token endpoint
 * whatever the key file's `token_uri` says (Google's Python, Go and Java libraries honour it). A
 * key issued for another endpoint (a sovereign cloud's, a private identity proxy, a local
 * stand-in) gets a transport that sends the grant there, the assertion unchanged.
 */
function transportFor(
  key: Readonly<Record<string, unknown>>,
  Gaxios: typeof gaxios.Gaxios,
): gaxios.Gaxios | undefined {
  const tokenUri = key.token_uri;
  if (key.type !== 'service_account' || typeof tokenUri !== 'string' || tokenUri === GOOGLE_TOKEN_URL)
    return undefined;
  const target = new URL(tokenUri);
  const transporter = new Gaxios();
  transporter.interceptors.request.add({
    resolved: (config) => {
      if (config.url.href === GOOGLE_TOKEN_URL) config.url = target;
      return Promise.resolve(config);
    },
  });
  return transporter;
}

/**
 * The client of the source `googleSource` names, asking for `cloud-platform` tokens. The library
 * is loaded here, at the first token, so only a gateway with a Vertex provider loads it.
 */
export async function googleAuthClient(vars: Vars): Promise<AuthClient> {
  const { Compute, gaxios, GoogleAuth } = await import('google-auth-library');
  if (googleSource(vars) === 'metadata_server') return new Compute({ scopes: [CLOUD_PLATFORM_SCOPE] });
  const file = vars.GOOGLE_APPLICATION_CREDENTIALS!;
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    const why =
      err instanceof SyntaxError ? 'not JSON' : ((err as NodeJS.ErrnoException).code ?? 'unreadable');
    throw new Error(`GOOGLE_APPLICATION_CREDENTIALS: ${file} is ${why}`, { cause: err });
  }
  const transporter = transportFor(key, gaxios.Gaxios);
  const auth = new GoogleAuth({
    credentials: key,
    scopes: [CLOUD_PLATFORM_SCOPE],
    ...(transporter && { clientOptions: { transporter } }),
  });
  return auth.getClient();
}

/**
 * A provider authenticated with Google's Application Default Credentials: `Authorization: Bearer`
 * and the key's quota project (`x-goog-user-project`, billing of the calls) when it names one.
 */
export function googleAuth(
  clientOf: () => Promise<AuthClient>,
  options: RefresherOptions = {},
): UpstreamAuth {
  let client: Promise<AuthClient> | null = null;
  let quotaProject: string | null = null;
  const fetch = async (): Promise<AccessToken> => {
    // A client that could not be built (an unreadable key file) is tried again on the next refresh.
    client ??= clientOf().catch((err: unknown) => {
      client = null;
      throw err;
    });
    const built = await client;
    quotaProject = built.quotaProjectId ?? null;
    const { token } = await built.getAccessToken();
    if (!token) throw new Error('no access token from the Google credentials');
    const expiry = built.credentials.expiry_date;
    return { token, expiresAtMs: typeof expiry === 'number' ? expiry : Date.now() + UNKNOWN_EXPIRY_MS };
  };
  const extra = (): Record<string, string> =>
    quotaProject === null ? {} : { 'x-goog-user-project': quotaProject };
  return new BearerTokenAuth(fetch, options, extra);
}
