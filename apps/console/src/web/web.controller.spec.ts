import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CONTENT_SECURITY_POLICY } from './security-headers.js';
import { findWebRoot } from './web-files.js';
import { WebModule } from './web.module.js';

@Controller()
class ApiStub {
  @Get('/api/ping')
  ping(): object {
    return { pong: true };
  }
}

@Module({ controllers: [ApiStub] })
class ApiStubModule {}

describe('console web module (static UI served by Nest on Fastify)', () => {
  let app: NestFastifyApplication;
  let dir: string;
  let root: string;
  let port: number;

  beforeAll(async () => {
    // root/ holds the site; a secret sits beside it, where traversal would reach.
    dir = await mkdtemp(join(tmpdir(), 'console-web-'));
    root = join(dir, 'web');
    await mkdir(join(root, 'js'), { recursive: true });
    await writeFile(join(root, 'index.html'), '<!doctype html><title>console</title>');
    await writeFile(join(root, 'styles.css'), 'body{}');
    await writeFile(join(root, 'js', 'app.js'), 'export {};');
    await writeFile(join(root, 'notes.md'), '# unknown type');
    await writeFile(join(root, '.env'), 'SECRET=1');
    await writeFile(join(dir, 'secret.txt'), 'top secret');

    @Module({ imports: [ApiStubModule, WebModule.forRoot(root)] })
    class TestModule {}
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), {
      logger: false,
    });
    await app.listen(0, '127.0.0.1');
    port = Number(new URL(await app.getUrl()).port);
  });

  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  interface Reply {
    readonly statusCode: number;
    readonly headers: IncomingHttpHeaders;
    readonly body: string;
    json(): unknown;
  }
  // node:http sends the path byte for byte (fetch would normalise `..` away before it is sent).
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<Reply>((done, fail) => {
      const req = request({ host: '127.0.0.1', port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          done({ statusCode: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      });
      req.on('error', fail);
      req.end();
    });

  it('serves index.html at / with no-store and the security headers', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<title>console</title>');
    expect(res.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('answers client-side routes with index.html (deep links and reloads work)', async () => {
    for (const path of ['/keys', '/logs/req_123', '/setup?token=abc', '/index.html']) {
      const res = await get(path);
      expect([path, res.statusCode, res.headers['content-type']]).toEqual([
        path,
        200,
        'text/html; charset=utf-8',
      ]);
      expect(res.body).toContain('<title>console</title>');
    }
  });

  it('serves assets with their content type, revalidated by ETag', async () => {
    const css = await get('/styles.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toBe('body{}');
    const js = await get('/js/app.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('no-cache');
    const again = await get('/js/app.js', { 'if-none-match': String(js.headers.etag) });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('refuses traversal, hidden files, unknown types and missing assets', async () => {
    for (const path of [
      '/../secret.txt',
      '/js/../../secret.txt',
      '/%2e%2e/secret.txt',
      '/js/%2E%2E%2F%2E%2E%2Fsecret.txt',
      '/.env',
      '/notes.md',
      '/missing.js',
    ]) {
      const res = await get(path);
      expect([path, res.statusCode]).toEqual([path, 404]);
      expect(res.body).not.toContain('secret');
    }
    for (const path of ['/%E0%A4%A', '/a%00.js', '/js%5C..%5Csecret.txt']) {
      const res = await get(path);
      expect([path, res.statusCode]).toEqual([path, 400]);
    }
  });

  it('leaves declared routes to their controllers and keeps unknown /api paths JSON 404s', async () => {
    const ping = await get('/api/ping');
    expect(ping.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
    expect(ping.json()).toEqual({ pong: true });
    expect(ping.headers['x-content-type-options']).toBe('nosniff');
    const missing = await get('/api/nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/json/);
    expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'No route GET /api/nope' } });
  });

  it('finds the real web folder from the sources and from dist/, and says where it looked', () => {
    const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
    const web = join(repo, 'apps', 'console', 'web');
    expect(findWebRoot()).toBe(web);
    // Where the compiled module sits after `npm run build` (npm start, the Docker image).
    const built = pathToFileURL(join(repo, 'dist', 'apps', 'console', 'src', 'web', 'web-files.js'));
    expect(findWebRoot(built.href)).toBe(web);
    expect(() => findWebRoot(pathToFileURL(join(dir, 'a', 'b', 'c', 'd', 'x.js')).href)).toThrow(
      /console web folder not found \(looked in /,
    );
  });
});
