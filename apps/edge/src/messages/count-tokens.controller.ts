import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CountTokensService } from './count-tokens.service.js';

/** Anthropic's token counting (`client.messages.countTokens`, Claude Code); `?beta=true` accepted. */
@Controller()
export class CountTokensController {
  constructor(private readonly counter: CountTokensService) {}

  @Post('/v1/messages/count_tokens')
  @HttpCode(200)
  count(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.counter.handle(req, reply);
  }
}
