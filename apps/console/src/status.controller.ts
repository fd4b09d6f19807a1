import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Redis } from 'ioredis';
import { Catalog, type Env } from '#libs/config';
import { type RedisKeys } from '#libs/redis';
import { parseRouteTable, readRouteTable, type RouteTable } from '#libs/routing';
import { renderStatusPage } from './status-page.js';
import { CATALOG, ENV, REDIS, REDIS_KEYS } from './tokens.js';

@Controller()
export class StatusController {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(REDIS_KEYS) private readonly keys: RedisKeys,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(ENV) private readonly env: Env,
  ) {}

  @Get('/')
  @Header('content-type', 'text/html; charset=utf-8')
  async page(): Promise<string> {
    return renderStatusPage({
      catalog: this.catalog,
      routes: await this.routes(),
      baseUrl: `http://${this.env.host}:${this.env.edgePort}`,
    });
  }

  @Get('/healthz')
  health(): object {
    return { status: 'ok' };
  }

  @Get('/readyz')
  async ready(@Res() reply: FastifyReply): Promise<void> {
    const ok = await this.redis.ping().then(
      () => true,
      () => false,
    );
    void reply.code(ok ? 200 : 503).send({ ready: ok, redis: ok });
  }

  private async routes(): Promise<RouteTable | null> {
    const text = await readRouteTable(this.redis, this.keys).catch(() => null);
    if (text === null) return null;
    const parsed = parseRouteTable(text);
    return 'table' in parsed ? parsed.table : null;
  }
}
