import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type MockGoogle, startMockGoogle, verifyGoogleToken } from '#libs/testing';
import { googleAuth, googleAuthClient, googleSource } from './credential.js';
import { CredentialUnavailableError } from '#libs/credentials';

const REQ = { method: 'POST', url: 'https://x', headers: {}, body: '' } as const;
const FEDERATED = 'eyJhbGciOiJSUzI1NiJ9.k8s-projected-service-account-token.sig';

describe('GoogleAuthCredential with google-auth-library against a mock Google identity', () => {
  let google: MockGoogle;
  let dir: string;
  const file = (name: string, content: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const bearerOf = (headers: unknown): string => (headers as Record<string, string>).authorization!.slice(7);

  beforeAll(async () => {
    google = await startMockGoogle({ federatedToken: FEDERATED });
    dir = mkdtempSync(join(tmpdir(), 'gw-google-'));
  });
  afterAll(() => google.close());

  it("service-account key: the JWT-bearer grant goes to the key's token_uri, the token is Google's cloud-platform one", async () => {
    const vars = { GOOGLE_APPLICATION_CREDENTIALS: file('sa.json', google.newServiceAccount()) };
    expect(googleSource(vars)).toBe('credentials_file');
    const auth = googleAuth(() => googleAuthClient(vars));
    await auth.start();
    expect(auth.failure).toBeNull();
    const headers = auth.headers(REQ);
    expect(headers).not.toBeInstanceOf(Promise);
    expect(await verifyGoogleToken(bearerOf(headers), google.signingKeys)).toMatchObject({ ok: true });
    expect(google.issued.at(-1)).toMatchObject({
      grant: 'service_account',
      principal: expect.stringMatching(/^model-gateway@mock-project\.iam\.gserviceaccount\.com$/),
      scope: 'https://www.googleapis.com/auth/cloud-platform',
    });
    auth.close();
  });

  it('workload identity federation: the platform token exchanged at the configuration token_url (STS)', async () => {
    const tokenFile = file('k8s-token', FEDERATED);
    const vars = { GOOGLE_APPLICATION_CREDENTIALS: file('wif.json', google.externalAccount(tokenFile)) };
    const auth = googleAuth(() => googleAuthClient(vars));
    await auth.start();
    expect(auth.failure).toBeNull();
    expect(await verifyGoogleToken(bearerOf(auth.headers(REQ)), google.signingKeys)).toMatchObject({
      ok: true,
    });
    expect(google.issued.at(-1)!.grant).toBe('workload_identity_federation');
    auth.close();
  });

  it('metadata server (GKE workload identity): GCE_METADATA_HOST is honoured, Metadata-Flavor sent', async () => {
    const saved = process.env.GCE_METADATA_HOST;
    // google-auth-library's metadata client reads the process environment itself.
    process.env.GCE_METADATA_HOST = google.metadataHost;
    try {
      expect(googleSource({})).toBe('metadata_server');
      const auth = googleAuth(() => googleAuthClient({}));
      await auth.start();
      expect(auth.failure).toBeNull();
      expect(await verifyGoogleToken(bearerOf(auth.headers(REQ)), google.signingKeys)).toMatchObject({
        ok: true,
      });
      expect(google.issued.at(-1)!.grant).toBe('metadata_server');
      auth.close();
    } finally {
      if (saved === undefined) delete process.env.GCE_METADATA_HOST;
      else process.env.GCE_METADATA_HOST = saved;
    }
  });

  it("records Google's refusal as the reason and has no token to give (a provider down, not a crash)", async () => {
    const vars = {
      GOOGLE_APPLICATION_CREDENTIALS: file('refused.json', google.newServiceAccount('refused')),
    };
    google.refuseAll(true);
    try {
      const auth = googleAuth(() => googleAuthClient(vars));
      await auth.start();
      expect(auth.failure).toBe('invalid_grant: Invalid grant: account not found');
      await expect(Promise.resolve().then(() => auth.headers(REQ))).rejects.toBeInstanceOf(
        CredentialUnavailableError,
      );
      auth.close();
    } finally {
      google.refuseAll(false);
    }
  });

  it('names an unreadable credentials file in the reason', async () => {
    const missing = googleAuth(() => googleAuthClient({ GOOGLE_APPLICATION_CREDENTIALS: join(dir, 'none') }));
    await missing.start();
    expect(missing.failure).toMatch(/GOOGLE_APPLICATION_CREDENTIALS: .*none is ENOENT/);
    missing.close();
    const garbled = googleAuth(() =>
      googleAuthClient({ GOOGLE_APPLICATION_CREDENTIALS: file('bad.json', '{not json') }),
    );
    await garbled.start();
    expect(garbled.failure).toMatch(/bad\.json is not JSON/);
    garbled.close();
  });

  it('concurrent first requests share one token request; a short-lived token is renewed before it expires, never awaited', async () => {
    google.setTokenLifetime(4);
    const vars = { GOOGLE_APPLICATION_CREDENTIALS: file('short.json', google.newServiceAccount('short')) };
    const before = google.issued.length;
    const auth = googleAuth(() => googleAuthClient(vars));
    try {
      // Ten requests before any token: one grant for all of them.
      const first = await Promise.all(Array.from({ length: 10 }, () => auth.headers(REQ)));
      expect(new Set(first.map(bearerOf)).size).toBe(1);
      expect(google.issued.length - before).toBe(1);
      // For 5 s (past the first token's expiry) every request is answered at once from the cache,
      // with a token Vertex would accept.
      const seen = new Set<string>();
      const stop = Date.now() + 5_000;
      while (Date.now() < stop) {
        const headers = auth.headers(REQ);
        expect(headers).not.toBeInstanceOf(Promise);
        const token = bearerOf(headers);
        seen.add(token);
        expect(await verifyGoogleToken(token, google.signingKeys)).toMatchObject({ ok: true });
        await sleep(25);
      }
      const mine = google.issued.slice(before);
      // Every token a request carried was one Google issued for us, and every token issued was
      // used, except at most the newest: a renewal may land between the last look and this line.
      const issuedTokens = new Set(mine.map((t) => t.token));
      expect([...seen].filter((t) => !issuedTokens.has(t))).toEqual([]);
      expect(mine.length - seen.size).toBeGreaterThanOrEqual(0);
      expect(mine.length - seen.size).toBeLessThanOrEqual(1);
      expect(seen.size).toBeGreaterThanOrEqual(2);
      // Each token was renewed ahead of its expiry.
      for (let i = 1; i < mine.length; i++)
        expect(mine[i]!.issuedAtMs).toBeLessThan(mine[i - 1]!.expiresAtMs);
    } finally {
      auth.close();
      google.setTokenLifetime(3600);
    }
  }, 15_000);
});
