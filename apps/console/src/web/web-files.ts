import { existsSync } from 'node:fs';
import { extname, posix, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Content types of the files the console ships; anything else is refused rather than guessed. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentTypeOf(file: string): string | undefined {
  return CONTENT_TYPES[extname(file).toLowerCase()];
}

/** What a request path asks of the static site. Pure: no file system access. */
export type WebTarget =
  | { readonly kind: 'file'; readonly file: string; readonly contentType: string }
  | { readonly kind: 'app' }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'bad-request' };

/**
 * Maps a URL path to a file under `root`, or to the single-page app (a path without an extension
 * is a client-side route). Refuses encoded NULs, dot segments and anything that would leave root.
 */
export function resolveWebTarget(root: string, urlPath: string): WebTarget {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0]!);
  } catch {
    return { kind: 'bad-request' };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return { kind: 'bad-request' };
  const segments = decoded.split('/').filter((s) => s !== '');
  // Dot segments are refused outright (not normalised away), and so are hidden files.
  if (segments.some((s) => s.startsWith('.'))) return { kind: 'not-found' };
  if (segments.length === 0 || (segments.length === 1 && segments[0] === 'index.html'))
    return { kind: 'app' };
  const last = segments[segments.length - 1]!;
  if (extname(last) === '') return { kind: 'app' };
  const contentType = contentTypeOf(last);
  if (!contentType) return { kind: 'not-found' };
  const base = resolve(root);
  const file = resolve(base, posix.join(...segments));
  if (!file.startsWith(base + sep)) return { kind: 'not-found' };
  return { kind: 'file', file, contentType };
}

/**
 * The console's web folder (`apps/console/web`): beside the sources when run from TypeScript
 * (tests), and at the repository root's copy when run from `dist/apps/console/src/web` (npm start,
 * the Docker image copies `apps/console/web` next to `dist`).
 */
export function findWebRoot(fromUrl: string = import.meta.url): string {
  const here = fileURLToPath(new URL('.', fromUrl));
  const candidates = [resolve(here, '../../web'), resolve(here, '../../../../../apps/console/web')];
  const found = candidates.find((dir) => existsSync(resolve(dir, 'index.html')));
  if (!found) throw new Error(`console web folder not found (looked in ${candidates.join(', ')})`);
  return found;
}
