import type { MockBehaviour } from './behaviour.js';
import type { RequestLog } from './request-log.js';
import type { JsonReply } from './types.js';

/** What the control endpoints act on. */
export interface MockState {
  behaviour: MockBehaviour;
  readonly log: RequestLog;
  /** Throws when the patch is invalid. */
  setBehaviour(patch: unknown): void;
  reset(): void;
}

/**
 * `/__mock/*`: runtime control for a mock started in another process (`npm run mock-provider`).
 * Not logged and never subject to injected faults.
 */
export function controlReply(state: MockState, method: string, path: string, body: unknown): JsonReply {
  const route = `${method} ${path}`;
  switch (route) {
    case 'POST /__mock/behaviour':
      try {
        state.setBehaviour(body ?? {});
      } catch (error) {
        return {
          kind: 'json',
          status: 400,
          body: { error: { message: (error as Error).message, type: 'invalid_behaviour' } },
        };
      }
      return { kind: 'json', status: 200, body: state.behaviour };
    case 'GET /__mock/behaviour':
      return { kind: 'json', status: 200, body: state.behaviour };
    case 'POST /__mock/reset':
      state.reset();
      return { kind: 'json', status: 200, body: { ok: true } };
    case 'GET /__mock/stats':
      return { kind: 'json', status: 200, body: state.log.stats() };
    case 'GET /__mock/requests':
      return { kind: 'json', status: 200, body: { requests: state.log.list() } };
    default:
      return {
        kind: 'json',
        status: 404,
        body: { error: { message: `Unknown control endpoint ${route}`, type: 'not_found' } },
      };
  }
}
