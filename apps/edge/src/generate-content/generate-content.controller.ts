import { Controller, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '#libs/protocol';
import { CLIENT_APIS, type ClientRequestParts } from '#libs/providers';
import { sendError } from '../http/send-error.js';
import { TokenCountService } from '../pipeline/token-count.service.js';
import { ModelRequestService } from '../pipeline/model-request.service.js';

/**
 * Google's Gemini API (`@google/genai`, Gemini CLI with GOOGLE_GEMINI_BASE_URL): custom methods
 * on a model, `POST /v1beta/models/{model}:{method}`. The model goes in the path, so the method
 * is whatever follows its last colon (model ids may hold colons: `llama3:8b`).
 */
@Controller()
export class GenerateContentController {
  constructor(
    private readonly requests: ModelRequestService,
    private readonly counter: TokenCountService,
  ) {}

  @Post('/v1beta/models/:modelMethod')
  @HttpCode(200)
  call(
    @Param('modelMethod') modelMethod: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const colon = modelMethod.lastIndexOf(':');
    const parts: ClientRequestParts = {
      params: { model: modelMethod.slice(0, colon), action: modelMethod.slice(colon + 1) },
      query: (req.query ?? {}) as ClientRequestParts['query'],
    };
    switch (colon > 0 ? parts.params.action : '') {
      case 'generateContent':
      case 'streamGenerateContent':
        return this.requests.handle(CLIENT_APIS.generate_content, req, reply, parts);
      case 'countTokens':
        return this.counter.handle(CLIENT_APIS.count_content_tokens, req, reply, parts);
      default:
        sendError(reply, new GatewayError('not_found', `Method not found: ${modelMethod.slice(0, 100)}.`));
        return Promise.resolve();
    }
  }
}
