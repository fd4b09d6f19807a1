// The signed-in user, held in memory only (the session itself is the HttpOnly cookie).
import { api, setCsrfToken } from './api.js';

let current = null;

export function getSession() {
  return current;
}

/** Stores `{user, csrfToken}` from sign-in, setup or GET /api/session. */
export function setSession(session) {
  current = session ? { user: session.user, gatewayUrl: session.gatewayUrl } : null;
  setCsrfToken(session?.csrfToken);
}

/** The current session from the server, or null when signed out. */
export async function loadSession() {
  try {
    setSession(await api.get('/api/session', undefined, { quiet401: true }));
  } catch (err) {
    if (err.status !== 401) throw err;
    setSession(null);
  }
  return current;
}

export async function signOut() {
  try {
    await api.post('/api/auth/sign-out');
  } finally {
    setSession(null);
  }
}

/**
 * The address clients configure: the gateway's own when the API names it, else this origin (in a
 * deployment the ingress sends /v1 to the edge and / to the console, so they share it).
 */
export function gatewayUrl() {
  return (current?.gatewayUrl ?? location.origin).replace(/\/+$/, '');
}
