import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { resolveWebTarget } from './web-files.js';
import { WEB_ROOT } from './web.tokens.js';
import { Public } from '../session/principal.js';

/**
 * Serves the console's static single-page app. Registered as a catch-all, so every route another
 * controller declares (the API, health checks) wins over it; unknown `/api/` paths stay JSON 404s.
 */
// No credentials: there is no guard here; declared so every console route states its rule.
@Public()
@Controller()
export class WebController {
  constructor(@Inject(WEB_ROOT) private readonly root: string) {}

  @Get('*')
  async serve(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const path = req.url.split('?')[0]!;
    if (path === '/api' || path.startsWith('/api/')) {
      void reply.code(404).send({ error: { code: 'not_found', message: `No route ${req.method} ${path}` } });
      return;
    }
    const target = resolveWebTarget(this.root, path);
    switch (target.kind) {
      case 'bad-request':
        void reply.code(400).type('text/plain; charset=utf-8').send('Bad request path');
        return;
      case 'not-found':
        void reply.code(404).type('text/plain; charset=utf-8').send('Not found');
        return;
      case 'app':
        // The page itself is never cached, so a new deployment's scripts are picked up on reload.
        void reply
          .header('cache-control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(await readFile(resolve(this.root, 'index.html')));
        return;
      case 'file':
        await this.sendFile(req, reply, target.file, target.contentType);
    }
  }

  private async sendFile(
    req: FastifyRequest,
    reply: FastifyReply,
    file: string,
    contentType: string,
  ): Promise<void> {
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) {
      void reply.code(404).type('text/plain; charset=utf-8').send('Not found');
      return;
    }
    // Assets are not content-hashed: revalidate each time, answer 304 when unchanged.
    const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    void reply.header('cache-control', 'no-cache').header('etag', etag);
    if (req.headers['if-none-match'] === etag) {
      void reply.code(304).send();
      return;
    }
    void reply.type(contentType).send(await readFile(file));
  }
}
