import { type FastifyRequest, type onRequestHookHandler, type RouteOptions } from 'fastify';

/**
 * The body limit of the routes that take the whole configuration document (save, validate, import
 * as YAML). The console's own limit (`console.body_limit_bytes`, 64 KiB) refused a configuration of
 * 1,000 models: measured, 20 providers, 1,000 priced models and four groups make a 0.32 MB save body
 * and a 0.36 MB import body. 4 MiB holds about ten times that, and the import's YAML at its
 * schema's 1,000,000 characters even with every line break escaped in the JSON. These routes
 * authenticate the caller before the body is read (an onRequest hook), so only a signed-in user or
 * an admin token can make the console hold a few MB; every other route keeps the console's limit.
 */
export const CONFIG_DOCUMENT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

const CONFIG_DOCUMENT_ROUTES: ReadonlySet<string> = new Set([
  'PUT /api/admin/config',
  'POST /api/admin/config/validate',
  'POST /api/admin/config/import',
]);

/**
 * For Fastify's onRoute hook: gives the configuration document's routes their larger limit, and
 * `authenticate` (throws when the caller is not signed in) before their body is read.
 */
export function widenConfigDocumentLimit(
  route: RouteOptions,
  authenticate: (req: FastifyRequest) => Promise<void>,
): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const path = route.url.replace(/\/$/, '');
  if (!methods.some((method) => CONFIG_DOCUMENT_ROUTES.has(`${method} ${path}`))) return;
  route.bodyLimit = CONFIG_DOCUMENT_BODY_LIMIT_BYTES;
  const early: onRequestHookHandler = (req, _reply, done) => {
    authenticate(req).then(() => done(), done);
  };
  const hooks = route.onRequest === undefined ? [] : [route.onRequest].flat();
  route.onRequest = [...hooks, early];
}
