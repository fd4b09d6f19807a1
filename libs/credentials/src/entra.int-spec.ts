import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startMockEntra, type MockEntra, verifyEntraToken } from '#libs/testing';
import { EntraAuth, entraCredential, entraSource } from './entra.js';
import { CredentialUnavailableError } from './upstream-auth.js';

describe('EntraAuth with @azure/identity against a mock Entra ID', () => {
  let entra: MockEntra;
  beforeAll(async () => {
    entra = await startMockEntra({ tokenLifetimeSeconds: 3600 });
  });
  afterAll(() => entra.close());

  it('gets a signed token for Cognitive Services with a client secret, then answers from its cache', async () => {
    expect(entraSource(entra.env())).toBe('client_secret');
    const auth = new EntraAuth(entraCredential(entra.env()));
    await auth.start();
    expect(auth.failure).toBeNull();
    const headers = auth.headers({ method: 'POST', url: 'https://x', headers: {}, body: '' });
    expect(headers).not.toBeInstanceOf(Promise);
    const bearer = (headers as Record<string, string>).authorization!;
    expect(bearer).toMatch(/^Bearer /);
    expect(verifyEntraToken(bearer.slice(7), entra.signingKeys)).toMatchObject({ ok: true });
    expect(entra.issued).toHaveLength(1);
    auth.close();
  });

  it('records the refusal of a bad secret as the reason, and has no token to give', async () => {
    const auth = new EntraAuth(entraCredential({ ...entra.env(), AZURE_CLIENT_SECRET: 'wrong' }));
    await auth.start();
    expect(auth.failure).toMatch(/AADSTS7000215/);
    expect(auth.failure).not.toMatch(/Trace ID|Correlation ID/);
    await expect(
      Promise.resolve().then(() => auth.headers({ method: 'POST', url: 'https://x', headers: {}, body: '' })),
    ).rejects.toBeInstanceOf(CredentialUnavailableError);
    auth.close();
  });
});
