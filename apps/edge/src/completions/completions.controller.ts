import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ModelRequestService } from '../pipeline/model-request.service.js';
import { CLIENT_APIS } from '#libs/providers';

@Controller()
export class CompletionsController {
  constructor(private readonly requests: ModelRequestService) {}

  @Post('/v1/completions')
  @HttpCode(200)
  create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.requests.handle(CLIENT_APIS.completions, req, reply);
  }
}
