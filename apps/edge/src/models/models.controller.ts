import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Catalog, type ModelConfig } from '#libs/config';
import { asGatewayError, type ClientFormat, clientFormatOf, GatewayError } from '#libs/protocol';
import { apiKeyOf, BEARER_OR_X_API_KEY } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { sendError } from '../http/send-error.js';
import { CATALOG } from '../tokens.js';
import { modelList, modelObject } from './model-list.js';

const FORMATS: readonly ClientFormat[] = ['openai', 'anthropic'];

/**
 * GET /v1/models and /v1/models/{id}: the models of the key's group, in the client's vendor
 * shape (Anthropic's when it sends `anthropic-version` or authenticates by `x-api-key`, as its
 * SDKs do; OpenAI's otherwise), each list serialized once per group and shape at boot. A model
 * unknown or outside the group is the same 404, so a key cannot probe other groups' models.
 */
@Controller()
export class ModelsController {
  private readonly lists = new Map<string, string>();
  private readonly groups = new Map<string, ReadonlyMap<string, ModelConfig>>();

  constructor(
    private readonly keys: KeyResolver,
    @Inject(CATALOG) catalog: Catalog,
  ) {
    for (const group of catalog.groups.keys()) {
      const models = catalog.modelsOfGroup(group);
      this.groups.set(group, new Map(models.map((m) => [m.id, m])));
      for (const format of FORMATS)
        this.lists.set(`${format}:${group}`, JSON.stringify(modelList(models, format)));
    }
  }

  @Get('/v1/models')
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const format = clientFormatOf(req.url, req.headers);
    try {
      const key = await this.keys.authenticate(apiKeyOf(req.headers, req.query, BEARER_OR_X_API_KEY));
      const body = this.lists.get(`${format}:${key.group}`) ?? JSON.stringify(modelList([], format));
      void reply.type('application/json').send(body);
    } catch (err) {
      sendError(reply, asGatewayError(err));
    }
  }

  @Get('/v1/models/:id')
  async retrieve(
    @Param('id') id: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    try {
      const key = await this.keys.authenticate(apiKeyOf(req.headers, req.query, BEARER_OR_X_API_KEY));
      const model = this.groups.get(key.group)?.get(id);
      if (!model) {
        throw new GatewayError('model_not_found', `The model \`${id.slice(0, 100)}\` does not exist.`, {
          param: 'model',
        });
      }
      void reply.type('application/json').send(modelObject(model, clientFormatOf(req.url, req.headers)));
    } catch (err) {
      sendError(reply, asGatewayError(err));
    }
  }
}
