import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startMockEntra, type MockEntra, verifyEntraToken } from '#libs/testing';
import { entraAuth, entraCredential, entraSource } from './credential.js';
import { CredentialUnavailableError } from '#libs/credentials';

describe('EntraAuth with @azure/identity against a mock Entra ID', () => {
  let entra: MockEntra;
  beforeAll(async () => {
    entra = await startMockEntra({ tokenLifetimeSeconds: 3600 });
  });
  afterAll(() => entra.close());

  it('gets a signed token for Cognitive Services with a client secret, then answers from its cache', async () => {
    expect(entraSource(entra.env())).toBe('client_secret');
    const auth = entraAuth(entraCredential(entra.env()));
    await auth.start();
    expect(auth.failure).toBeNull();
    const headers = auth.headers({ method: 'POST', url: 'https://x', headers: {}, body: '' });
    expect(headers).not.toBeInstanceOf(Promise);
    const bearer = (headers as Record<string, string>).authorization!;
    expect(bearer).toMatch(/^Bearer /);
    expect(await verifyEntraToken(bearer.slice(7), entra.signingKeys)).toMatchObject({ ok: true });
    expect(entra.issued).toHaveLength(1);
    auth.close();
  });

  it('records the refusal of a bad secret as the reason, and has no token to give', async () => {
    const auth = entraAuth(entraCredential({ ...entra.env(), AZURE_CLIENT_SECRET: 'wrong' }));
    await auth.start();
    expect(auth.failure).toMatch(/AADSTS7000215/);
    expect(auth.failure).not.toMatch(/Trace ID|Correlation ID/);
    await expect(
      Promise.resolve().then(() => auth.headers({ method: 'POST', url: 'https://x', headers: {}, body: '' })),
    ).rejects.toBeInstanceOf(CredentialUnavailableError);
    auth.close();
  });
});

describe('EntraAuth with workload identity federation (AKS), against a mock Entra ID', () => {
  /** The projected service account token the kubelet writes, which the tenant trusts. */
  const PROJECTED = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6bXk6Z2F0ZXdheSJ9.c2ln';
  let entra: MockEntra;
  let dir: string;
  /** The environment the workload identity webhook sets, its token file holding `token`. */
  const webhookEnv = (token: string): Record<string, string> => {
    const file = join(dir, `token-${token.length}`);
    writeFileSync(file, token);
    const { AZURE_CLIENT_SECRET: _secret, ...env } = entra.env();
    return { ...env, AZURE_FEDERATED_TOKEN_FILE: file };
  };

  beforeAll(async () => {
    entra = await startMockEntra({ federatedToken: PROJECTED });
    dir = mkdtempSync(join(tmpdir(), 'entra-wi-'));
  });
  afterAll(async () => {
    await entra.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('presents the token file as a client assertion and gets a signed Cognitive Services token', async () => {
    const env = webhookEnv(PROJECTED);
    expect(entraSource(env)).toBe('workload_identity');
    const auth = entraAuth(entraCredential(env));
    await auth.start();
    expect(auth.failure).toBeNull();
    const headers = auth.headers({ method: 'POST', url: 'https://x', headers: {}, body: '' });
    const bearer = (headers as Record<string, string>).authorization!;
    expect(await verifyEntraToken(bearer.slice(7), entra.signingKeys)).toMatchObject({ ok: true });
    expect(entra.issued.map((t) => t.grant)).toEqual(['client_assertion']);
    auth.close();
  });

  it('records the tenant refusing an assertion it has no federated credential for', async () => {
    const auth = entraAuth(entraCredential(webhookEnv(`${PROJECTED}-other-cluster`)));
    await auth.start();
    expect(auth.failure).toMatch(/AADSTS700213/);
    auth.close();
  });
});
