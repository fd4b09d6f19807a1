import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Controller, Get, NotFoundException, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '../session/principal.js';

/** The Swagger UI files we serve, by name: a fixed list, so no path from the URL reaches the disk. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console API</title>
<link rel="icon" href="/api/docs/favicon-32x32.png"><link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head><body><div id="swagger-ui"></div>
<script src="/api/docs/swagger-ui-bundle.js"></script><script src="/api/docs/init.js"></script>
</body></html>`;

// A separate file rather than an inline script: the console's CSP allows only its own scripts.
const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * Swagger UI at /api/docs, from the swagger-ui-dist package @nestjs/swagger ships with. Served
 * here instead of by SwaggerModule, whose @fastify/static route cannot load under Jest's ESM mode.
 */
@ApiExcludeController()
// No credentials: there is no guard here; declared so every console route states its rule.
@Public()
@Controller('api/docs')
export class DocsController {
  private readonly root = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  private readonly cache = new Map<string, Buffer>();

  @Get()
  page(@Res() reply: FastifyReply): void {
    void reply.type('text/html; charset=utf-8').send(PAGE);
  }

  @Get('init.js')
  init(@Res() reply: FastifyReply): void {
    void reply.type('application/javascript; charset=utf-8').send(INIT);
  }

  @Get(':file')
  async asset(@Param('file') file: string, @Res() reply: FastifyReply): Promise<void> {
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) throw new NotFoundException();
    let body = this.cache.get(file);
    if (!body) {
      body = await readFile(join(this.root, file));
      this.cache.set(file, body);
    }
    void reply.type(type).header('cache-control', 'public, max-age=3600').send(body);
  }
}
