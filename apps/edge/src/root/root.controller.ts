import { Controller, Get, Header } from '@nestjs/common';

/** Serialized once: the same few bytes for every probe. */
const BODY = JSON.stringify({ service: 'model-gateway', openai_base_url: '/v1', anthropic_base_url: '/' });

/**
 * `GET /` and `HEAD /` (Fastify answers HEAD for every GET route, without the body): some CLIs
 * check connectivity at the base URL before their first call. No auth and nothing secret; whether
 * this edge can serve is `/readyz`'s question.
 */
@Controller()
export class RootController {
  @Get('/')
  @Header('content-type', 'application/json; charset=utf-8')
  root(): string {
    return BODY;
  }
}
