// The console API client: JSON in and out, the session's CSRF token on every mutating request,
// and a 401 on any call but sign-in sends the browser back to the sign-in page.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

let csrfToken = null;
let onUnauthenticated = () => {};

export function setCsrfToken(token) {
  csrfToken = token ?? null;
}

/** Called with no argument when a request answers 401 (the session ended or never existed). */
export function setUnauthenticatedHandler(handler) {
  onUnauthenticated = handler;
}

function withQuery(path, query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function request(method, path, opts = {}) {
  try {
    return await send(method, path, opts);
  } catch (err) {
    // The session's token changes when it is renewed (e.g. a sign-in in another tab): fetch the
    // current one and retry once.
    if (err.code !== 'csrf_failed') throw err;
    const session = await send('GET', '/api/session', { quiet401: opts.quiet401 });
    csrfToken = session?.csrfToken ?? null;
    return send(method, path, opts);
  }
}

async function send(method, path, { body, query, quiet401 = false } = {}) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res;
  try {
    res = await fetch(withQuery(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network_error', 'The console cannot be reached. Check your connection and retry.');
  }
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (res.ok) return data;
  const code = data?.error?.code ?? 'http_error';
  const message = data?.error?.message ?? `The console answered HTTP ${res.status}.`;
  const retryAfter = Number(res.headers.get('retry-after')) || undefined;
  if (res.status === 401 && !quiet401) {
    csrfToken = null;
    onUnauthenticated();
  }
  throw new ApiError(res.status, code, message, retryAfter);
}

export const api = {
  get: (path, query, opts) => request('GET', path, { ...opts, query }),
  post: (path, body, opts) => request('POST', path, { ...opts, body: body ?? {} }),
  put: (path, body) => request('PUT', path, { body }),
  patch: (path, body) => request('PATCH', path, { body }),
  del: (path) => request('DELETE', path),
};
