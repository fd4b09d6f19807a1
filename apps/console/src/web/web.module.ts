import { type DynamicModule, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS } from './security-headers.js';
import { findWebRoot } from './web-files.js';
import { WebController } from './web.controller.js';
import { WEB_ROOT } from './web.tokens.js';

/** Adds the console's security headers to every response of the app, API and errors included. */
class SecurityHeaders implements OnModuleInit {
  constructor(@Inject(HttpAdapterHost) private readonly host: HttpAdapterHost) {}

  onModuleInit(): void {
    const fastify = this.host.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onSend', async (_req, reply, payload) => {
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        if (!reply.hasHeader(name)) void reply.header(name, value);
      return payload;
    });
  }
}

/**
 * The console's browser UI: static files from `apps/console/web` at `/`, index.html for
 * client-side routes. Its catch-all route only takes paths no other controller declares.
 */
@Module({})
export class WebModule {
  /** `root` defaults to the console's web folder; tests may serve another. */
  static forRoot(root: string = findWebRoot()): DynamicModule {
    return {
      module: WebModule,
      controllers: [WebController],
      providers: [{ provide: WEB_ROOT, useValue: root }, SecurityHeaders],
    };
  }
}
