import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { openai } from '#libs/providers';
import { PassthroughService } from '../passthrough/passthrough.service.js';

@Controller()
export class ResponsesController {
  constructor(private readonly passthrough: PassthroughService) {}

  @Post('/v1/responses')
  @HttpCode(200)
  create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.passthrough.handle(openai.responsesEndpoint, req, reply);
  }
}
