import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PROMETHEUS_CONTENT_TYPE, prometheusText } from './prometheus.js';

/**
 * `GET /metrics` on an app's own port, Prometheus text. Register it in each app module. Not part
 * of any API description (the console's OpenAPI document).
 */
@ApiExcludeController()
@Controller()
export class MetricsController {
  @Get('metrics')
  async metrics(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    void reply.header('content-type', PROMETHEUS_CONTENT_TYPE);
    return prometheusText();
  }
}
