import { describe, expect, it } from '@jest/globals';
import { type KeyRecord } from '#libs/auth';
import { CatalogSnapshot } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { GatewayError } from '#libs/protocol';
import { type QuotaGate } from '../quota/quota-gate.service.js';
import { type ModelMiss, type UpstreamCall } from '../upstream/upstream-run.js';
import { FallbackChain } from './fallback-chain.js';

const KEY: KeyRecord = { id: 'k', userId: 'u', group: 'g', status: 'active', expiresAt: null };

/** Model `a` (window 100) falls back to small (50), nowindow (unknown) and big (1000), in that order. */
function snapshotOf(windows: Record<string, number | undefined> = { a: 100, small: 50, big: 1000 }) {
  const ids = ['a', 'small', 'nowindow', 'big'];
  return new CatalogSnapshot(
    parseConfig({
      providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ids }],
      models: ids.map((id) => ({
        id,
        owned_by: 'x',
        created: 1,
        pricing: { input_per_million: ids.indexOf(id) + 1, output_per_million: 1 },
        ...(windows[id] === undefined ? {} : { context_window: windows[id] }),
        ...(id === 'a' ? { fallbacks: ['small', 'nowindow', 'big'] } : {}),
      })),
      groups: { g: ids },
    }),
    {},
  );
}

/** A quota gate that refuses the fallbacks named, and says which it was asked about. */
function quota(refused: readonly string[] = []) {
  const asked: string[] = [];
  const gate = {
    admitFallback: (_key: KeyRecord, from: string, to: string) => {
      asked.push(`${from}->${to}`);
      return Promise.resolve(!refused.includes(to));
    },
  } as unknown as QuotaGate;
  return { gate, asked };
}

const UNAVAILABLE: ModelMiss = { kind: 'unavailable', error: new GatewayError('upstream_error', 'down') };
const TOO_LONG: ModelMiss = { kind: 'too_long', answer: {} as UpstreamCall };
const servesAll = (): boolean => true;

function chain(refused: readonly string[] = [], windows?: Record<string, number | undefined>) {
  const snapshot = snapshotOf(windows);
  const first = snapshot.models.get('a')!;
  const q = quota(refused);
  return { chain: new FallbackChain(snapshot, KEY, first, q.gate), asked: q.asked };
}

describe('FallbackChain', () => {
  it('hands over to each model in turn after a miss, then to none', async () => {
    const { chain: c } = chain();
    expect(await c.next(UNAVAILABLE, 'a', servesAll)).toBe('small');
    expect(await c.next(UNAVAILABLE, 'small', servesAll)).toBe('nowindow');
    expect(await c.next(UNAVAILABLE, 'nowindow', servesAll)).toBe('big');
    expect(await c.next(UNAVAILABLE, 'big', servesAll)).toBeNull();
  });

  it('after a too-long refusal, takes only models whose window is known to be larger', async () => {
    const { chain: c } = chain();
    expect(await c.next(TOO_LONG, 'a', servesAll)).toBe('big');
  });

  it('keeps the largest refused window: an unavailable larger model does not reopen smaller ones', async () => {
    const { chain: c } = chain([], { a: 100, small: 50, nowindow: 200, big: 1000 });
    expect(await c.next(TOO_LONG, 'a', servesAll)).toBe('nowindow');
    expect(await c.next(TOO_LONG, 'nowindow', servesAll)).toBe('big');
    expect(await c.next(UNAVAILABLE, 'big', servesAll)).toBeNull();
  });

  it('does not fall back on a too-long refusal of a model whose window is not known', async () => {
    const { chain: c } = chain([], { small: 50, big: 1000 });
    expect(await c.next(TOO_LONG, 'a', servesAll)).toBeNull();
  });

  it('passes over a model the endpoint cannot reach and one its budgets refuse', async () => {
    const { chain: c, asked } = chain(['nowindow']);
    expect(await c.next(UNAVAILABLE, 'a', (m) => m !== 'small')).toBe('big');
    expect(asked).toEqual(['a->nowindow', 'a->big']);
  });
});
