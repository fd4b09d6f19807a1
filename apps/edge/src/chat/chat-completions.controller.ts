import { Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChatCompletionsService } from './chat-completions.service.js';

@Controller()
export class ChatCompletionsController {
  constructor(private readonly chat: ChatCompletionsService) {}

  @Post('/v1/chat/completions')
  @HttpCode(200)
  create(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.chat.handle(req, reply);
  }
}
