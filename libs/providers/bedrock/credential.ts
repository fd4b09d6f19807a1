import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import {
  type AccessToken,
  type RefresherOptions,
  type SignableRequest,
  TokenRefresher,
  type UpstreamAuth,
} from '#libs/credentials';

/** An AWS identity as the credential providers give it. */
export interface AwsIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
  /** When temporary credentials (a role's, a web identity's, the metadata service's) expire. */
  readonly expiration?: Date | undefined;
}

export type AwsIdentitySource = () => Promise<AwsIdentity>;

/**
 * The standard AWS credential chain (`@aws-sdk/credential-providers`): the environment
 * (`AWS_ACCESS_KEY_ID`...), the shared config and credentials files (`AWS_PROFILE`, SSO), web
 * identity (`AWS_WEB_IDENTITY_TOKEN_FILE` + `AWS_ROLE_ARN`: EKS IRSA), the container endpoint
 * (`AWS_CONTAINER_CREDENTIALS_FULL_URI`: EKS Pod Identity, ECS) and EC2 instance metadata. The
 * library reads those variables itself; nothing of them is in the gateway's config. It is loaded
 * at the first identity asked of it, so only a gateway with a Bedrock provider loads it.
 */
export function awsChain(): AwsIdentitySource {
  let chain: Promise<AwsIdentitySource> | undefined;
  const load = async (): Promise<AwsIdentitySource> =>
    (await import('@aws-sdk/credential-providers')).fromNodeProviderChain();
  return async () => (await (chain ??= load()))();
}

/**
 * The identity a provider signs with: the keys in the gateway's environment
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`) when it has them, else
 * the rest of the standard chain (`awsChain`).
 */
export function awsIdentity(vars: Readonly<Record<string, string | undefined>>): AwsIdentitySource {
  const accessKeyId = vars.AWS_ACCESS_KEY_ID;
  const secretAccessKey = vars.AWS_SECRET_ACCESS_KEY;
  if (accessKeyId && secretAccessKey) {
    const identity: AwsIdentity = {
      accessKeyId,
      secretAccessKey,
      sessionToken: vars.AWS_SESSION_TOKEN || undefined,
    };
    return () => Promise.resolve(identity);
  }
  return awsChain();
}

/** Static keys never expire: the chain is asked again this often all the same (a rotated key file). */
const STATIC_RECHECK_MS = 60 * 60_000;

/**
 * A provider whose requests are signed with AWS Signature Version 4 (service `bedrock`, the
 * provider's region). The identity is the shared refresher's (cached, renewed ahead of its expiry,
 * one refresh for all callers); every request is signed over its method, URL, headers and body,
 * so the headers answer with a promise (the signer hashes with Node's crypto).
 */
export class SigV4Auth implements UpstreamAuth {
  private readonly refresher: TokenRefresher;
  /** The identities by the opaque token the refresher holds for them (the current one and the last). */
  private readonly identities = new Map<string, AwsIdentity>();
  private serial = 0;
  private readonly signers = new Map<string, SignatureV4>();

  constructor(
    source: AwsIdentitySource,
    private readonly region: string,
    options: RefresherOptions = {},
    private readonly service = 'bedrock',
  ) {
    this.refresher = new TokenRefresher(async (): Promise<AccessToken> => {
      const identity = await source();
      if (!identity.accessKeyId || !identity.secretAccessKey)
        throw new Error('the AWS credential chain returned no access key');
      const token = `${identity.accessKeyId}#${++this.serial}`;
      this.identities.set(token, identity);
      // Insertion order: the oldest goes; a request signing with the previous one still finds it.
      if (this.identities.size > 2) this.identities.delete(this.identities.keys().next().value!);
      const now = Date.now();
      return {
        token,
        expiresAtMs: identity.expiration?.getTime() ?? now + STATIC_RECHECK_MS + 5 * 60_000,
      };
    }, options);
  }

  get failure(): string | null {
    return this.refresher.failure;
  }

  async headers(req: SignableRequest): Promise<Readonly<Record<string, string>>> {
    const token = this.refresher.valid() ?? (await this.refresher.token());
    const identity = this.identities.get(token)!;
    const url = new URL(req.url);
    const query: Record<string, string> = {};
    for (const [k, v] of url.searchParams) query[k] = v;
    const signed = await this.signer(token, identity).sign({
      method: req.method,
      protocol: url.protocol,
      hostname: url.hostname,
      path: url.pathname,
      query,
      // Host as the HTTP client sends it (the port only when not the scheme's default).
      headers: { ...req.headers, host: url.host },
      body: req.body,
    });
    const out: Record<string, string> = {
      authorization: String(signed.headers.authorization),
      'x-amz-date': String(signed.headers['x-amz-date']),
    };
    const sessionToken = signed.headers['x-amz-security-token'];
    if (sessionToken !== undefined) out['x-amz-security-token'] = String(sessionToken);
    return out;
  }

  start(): Promise<void> {
    return this.refresher.start();
  }

  close(): void {
    this.refresher.close();
  }

  /** One signer per identity: it caches the day's signing key. */
  private signer(token: string, identity: AwsIdentity): SignatureV4 {
    let signer = this.signers.get(token);
    if (signer === undefined) {
      this.signers.clear();
      signer = new SignatureV4({
        credentials: identity,
        region: this.region,
        service: this.service,
        sha256: Hash.bind(null, 'sha256'),
        applyChecksum: false,
      });
      this.signers.set(token, signer);
    }
    return signer;
  }
}
