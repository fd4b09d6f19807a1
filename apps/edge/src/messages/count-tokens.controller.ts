import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLIENT_APIS } from '#libs/providers';
import { TokenCountService } from '../pipeline/token-count.service.js';

/** Messages token counting (`client.messages.countTokens`, Claude Code); `?beta=true` accepted. */
@Controller()
export class CountTokensController {
  constructor(private readonly counter: TokenCountService) {}

  @Post('/v1/messages/count_tokens')
  @HttpCode(200)
  count(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.counter.handle(CLIENT_APIS.count_tokens, req, reply);
  }
}
