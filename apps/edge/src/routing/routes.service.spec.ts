import { describe, expect, it } from '@jest/globals';
import { Catalog, type GatewayConfigInput } from '#libs/config';
import { parseConfig } from '#libs/gateway-config';
import { type RedisClient, redisKeys } from '#libs/redis';
import { sessionHash } from '#libs/routing';
import { RoutesService } from './routes.service.js';

const model = (id: string, sticky?: boolean) => ({
  id,
  owned_by: 'x',
  created: 1,
  pricing: { input_per_million: 1, output_per_million: 2 },
  ...(sticky === undefined ? {} : { sticky_sessions: sticky }),
});

/** Three providers of equal priority and weight serving `plain` and `off` (which opts out). */
function routesWith(routing: GatewayConfigInput['routing'] = {}): RoutesService {
  const config = parseConfig({
    routing,
    providers: [0, 1, 2].map((i) => ({
      id: `p${i}`,
      type: 'openai',
      base_url: `http://127.0.0.1:${4010 + i}/v1`,
      models: ['plain', 'off', 'on'],
    })),
    models: [model('plain'), model('off', false), model('on', true)],
    groups: { default: ['plain', 'off', 'on'] },
  });
  // Never started: it routes on the configuration alone (every provider up), with no Redis call.
  return new RoutesService({} as RedisClient, redisKeys('routes-spec'), new Catalog(config, {}), config);
}

const SESSIONS = Array.from({ length: 60 }, (_, i) => sessionHash(`session-${i}`));

/** Whether every call of each session put the same provider first. */
function sticks(routes: RoutesService, id: string): boolean {
  return SESSIONS.every((s) => {
    const first = new Set(Array.from({ length: 12 }, () => routes.candidates(id, s)[0]!.providerId));
    return first.size === 1;
  });
}

describe('RoutesService: which models keep a session on one provider', () => {
  it('every model by default, but one that opts out', () => {
    const routes = routesWith();
    expect([routes.sticky('plain'), routes.sticky('off'), routes.sticky('on')]).toEqual([true, false, true]);
    expect(sticks(routes, 'plain')).toBe(true);
    expect(sticks(routes, 'off')).toBe(false);
  });

  it('none with routing.sticky_sessions false, but one that opts in', () => {
    const routes = routesWith({ sticky_sessions: false });
    expect([routes.sticky('plain'), routes.sticky('off'), routes.sticky('on')]).toEqual([false, false, true]);
    expect(sticks(routes, 'plain')).toBe(false);
    expect(sticks(routes, 'on')).toBe(true);
  });

  it('spreads sessions over every provider, and a call without a session by weight', () => {
    const routes = routesWith();
    const homes = new Set(SESSIONS.map((s) => routes.candidates('plain', s)[0]!.providerId));
    expect(homes).toEqual(new Set(['p0', 'p1', 'p2']));
    const firsts = new Set(Array.from({ length: 60 }, () => routes.candidates('plain')[0]!.providerId));
    expect(firsts.size).toBeGreaterThan(1);
  });
});
