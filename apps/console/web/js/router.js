// A History API router: real paths (/keys, /logs/req_1), so reloads and shared links work (the
// server answers every path without a file extension with index.html).

const routes = [];
let render = () => {};

/** `pattern` like '/logs/:id'; `handler(params, query)`. */
export function route(pattern, handler) {
  const names = [];
  const source = pattern.replace(/:(\w+)/g, (_m, name) => {
    names.push(name);
    return '([^/]+)';
  });
  routes.push({ regex: new RegExp(`^${source}/?$`), names, handler });
}

export function match(pathname) {
  for (const r of routes) {
    const m = r.regex.exec(pathname);
    if (!m) continue;
    const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    return { handler: r.handler, params };
  }
  return null;
}

export function navigate(to, { replace = false } = {}) {
  const url = new URL(to, location.origin);
  if (url.pathname + url.search === location.pathname + location.search && !replace) return render();
  history[replace ? 'replaceState' : 'pushState'](null, '', url.pathname + url.search);
  return render();
}

export function currentQuery() {
  return new URLSearchParams(location.search);
}

/** Starts routing: renders now, on back/forward, and on clicks of same-origin links. */
export function start(renderFn) {
  render = renderFn;
  window.addEventListener('popstate', () => render());
  document.addEventListener('click', (event) => {
    const a = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!a || a.target || a.hasAttribute('download') || event.defaultPrevented) return;
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  });
  return render();
}
