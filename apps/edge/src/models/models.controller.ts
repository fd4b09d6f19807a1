import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Catalog } from '#libs/config';
import { asGatewayError } from '#libs/protocol';
import { apiKeyFromHeaders } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { sendError } from '../http/send-error.js';
import { CATALOG } from '../tokens.js';

/**
 * GET /v1/models: the models of the key's group that an enabled provider serves (a vendor whose key
 * env var is unset is not offered), in OpenAI's list shape, serialized once per group at boot.
 */
@Controller()
export class ModelsController {
  private readonly bodies = new Map<string, string>();

  constructor(
    private readonly keys: KeyResolver,
    @Inject(CATALOG) catalog: Catalog,
  ) {
    for (const group of catalog.groups.keys()) {
      const data = catalog
        .modelsOfGroup(group)
        .map((m) => ({ id: m.id, object: 'model', created: m.created, owned_by: m.owned_by }));
      this.bodies.set(group, JSON.stringify({ object: 'list', data }));
    }
  }

  @Get('/v1/models')
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    try {
      const key = await this.keys.authenticate(apiKeyFromHeaders(req.headers, true));
      void reply.type('application/json').send(this.bodies.get(key.group) ?? '{"object":"list","data":[]}');
    } catch (err) {
      sendError(reply, asGatewayError(err));
    }
  }
}
