import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus.js';

/**
 * `GET /metrics` on an app's own port, Prometheus text. Register it in each app module. The
 * console's OpenAPI document leaves it out (it describes /api only): no Swagger decorator here,
 * since @nestjs/swagger and its 500 modules would load into every app for one flag.
 */
@Controller()
export class MetricsController {
  @Get('metrics')
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    void reply.header('content-type', PROMETHEUS_CONTENT_TYPE);
    return prometheusText();
  }
}
