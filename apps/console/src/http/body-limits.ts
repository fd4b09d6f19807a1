import { type RouteOptions } from 'fastify';

/**
 * The body limit of the routes that take the whole configuration document (save, validate, import
 * as YAML). The console's own limit (`console.body_limit_bytes`, 64 KiB) refused a configuration of
 * 1,000 models: measured, 20 providers, 1,000 priced models and four groups make a 0.32 MB save body
 * and a 0.36 MB import body. 4 MiB holds about ten times that, and the import's YAML at its
 * schema's 1,000,000 characters even with every line break escaped in the JSON. The body is read before the session guard runs,
 * so the limit is a bound on what anyone may make the console hold: a few MB per request, on these
 * three routes only; every other route keeps the console's limit.
 */
export const CONFIG_DOCUMENT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

const CONFIG_DOCUMENT_ROUTES: ReadonlySet<string> = new Set([
  'PUT /api/admin/config',
  'POST /api/admin/config/validate',
  'POST /api/admin/config/import',
]);

/** For Fastify's onRoute hook: gives the configuration document's routes their larger limit. */
export function widenConfigDocumentLimit(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const path = route.url.replace(/\/$/, '');
  if (methods.some((method) => CONFIG_DOCUMENT_ROUTES.has(`${method} ${path}`))) {
    route.bodyLimit = CONFIG_DOCUMENT_BODY_LIMIT_BYTES;
  }
}
