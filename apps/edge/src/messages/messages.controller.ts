import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ModelRequestService } from '../pipeline/model-request.service.js';
import { CLIENT_APIS } from '#libs/providers';

/** The Messages API; SDK query strings such as `?beta=true` are accepted and ignored. */
@Controller()
export class MessagesController {
  constructor(private readonly requests: ModelRequestService) {}

  @Post('/v1/messages')
  @HttpCode(200)
  create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.requests.handle(CLIENT_APIS.messages, req, reply);
  }
}
