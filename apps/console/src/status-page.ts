import { type Catalog } from '#libs/config';
import { type RouteTable } from '#libs/routing';

export interface StatusPageInput {
  readonly catalog: Catalog;
  readonly routes: RouteTable | null;
  /** The address clients put in their SDKs (the edge), without a trailing slash. */
  readonly baseUrl: string;
}

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The console's landing page: what the gateway serves and whether each provider is up. Pure. */
export function renderStatusPage({ catalog, routes, baseUrl }: StatusPageInput): string {
  const groups = [...catalog.groups.keys()]
    .map(
      (g) =>
        `<li><strong>${esc(g)}</strong>: ${catalog
          .modelsOfGroup(g)
          .map((m) => `<code>${esc(m.id)}</code>`)
          .join(', ')}</li>`,
    )
    .join('');
  const rows = catalog.config.models
    .map((m) => {
      const candidates = routes?.models[m.id] ?? [];
      const providers = candidates.length
        ? candidates
            .map(
              (c) =>
                `<span class="${esc(c.state)}" title="${esc(c.reason)}">${esc(c.providerId)} (${esc(c.state)})</span>`,
            )
            .join(' ')
        : '<em>no route published yet</em>';
      const price = `${m.pricing.input_per_million} / ${m.pricing.output_per_million}`;
      return `<tr><td><code>${esc(m.id)}</code></td><td>${esc(m.owned_by)}</td><td>${price}</td><td>${providers}</td></tr>`;
    })
    .join('');
  const freshness = routes
    ? `route table v${routes.version}, generated ${esc(routes.generatedAt)}`
    : 'the router has not published routes yet';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Model gateway console</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1b1f24}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left}
code,pre{background:#f3f4f6;border-radius:4px;padding:.1rem .3rem}pre{padding:.8rem;overflow:auto}
.up{color:#137333}.down{color:#b3261e}.disabled{color:#6b7280}
</style></head><body>
<h1>Model gateway</h1>
<p>Base address for OpenAI SDKs: <code>${esc(baseUrl)}/v1</code>; for Anthropic SDKs: <code>${esc(baseUrl)}</code>.</p>
<h2>Get an API key</h2>
<p>Keys are created by an operator on the gateway host and shown once:</p>
<pre>npm run key:create -- --email you@example.com --group default</pre>
<h2>Groups</h2><ul>${groups}</ul>
<h2>Models and providers</h2>
<p>${freshness}. Prices are credits per million input / output tokens.</p>
<table><thead><tr><th>Model</th><th>Owned by</th><th>Price</th><th>Providers (best first)</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>`;
}
