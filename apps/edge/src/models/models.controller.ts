import { Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Catalog, type CatalogSnapshot, type ModelConfig } from '#libs/config';
import { asGatewayError, type ClientFormat, clientFormatOf, GatewayError } from '#libs/protocol';
import { type ModelCard, MODELS_APIS } from '#libs/providers';
import { apiKeyOf } from '../auth/bearer.js';
import { KeyResolver } from '../auth/key-resolver.service.js';
import { sendError } from '../http/send-error.js';
import { CATALOG } from '../tokens.js';

const FORMATS = Object.keys(MODELS_APIS) as ClientFormat[];

/**
 * The Models APIs (`/v1/models` of two vendors, `/v1beta/models` of a third): the models of the
 * key's group in the shape the client's SDK reads (`clientFormatOf`: by path, and for the shared
 * `/v1/models` by the headers its SDK sends), each list serialized once per group and shape per
 * configuration version. A model with `list_aliases` is listed under each alias too. A model
 * unknown or outside the group is the same 404, so a key cannot probe other groups' models; an
 * alias is retrieved as listed (under its own id), or, unlisted, as the model it names (as
 * Anthropic's Models API answers an alias).
 */
@Controller()
export class ModelsController {
  private readonly lists = new Map<string, string>();
  private readonly groups = new Map<string, ReadonlyMap<string, ModelCard>>();

  constructor(
    private readonly keys: KeyResolver,
    @Inject(CATALOG) catalog: Catalog,
  ) {
    this.build(catalog.snapshot());
    catalog.onChange((next) => this.build(next));
  }

  /** The answers of every group in every format, made once per configuration version. */
  private build(catalog: CatalogSnapshot): void {
    this.lists.clear();
    this.groups.clear();
    for (const group of catalog.groups.keys()) {
      // Only what can be served: a model whose every provider is disabled or lacks its key is
      // not offered (the console shows it unavailable, with the reason).
      const models = catalog.availableModelsOfGroup(group);
      const cards = models.flatMap((m) => [m, ...listedAliases(m)]);
      const byName = new Map<string, ModelCard>(cards.map((c) => [c.id, c]));
      for (const m of models)
        for (const alias of m.aliases ?? []) if (!byName.has(alias)) byName.set(alias, m);
      this.groups.set(group, byName);
      for (const format of FORMATS)
        this.lists.set(`${format}:${group}`, JSON.stringify(MODELS_APIS[format].list(cards)));
    }
  }

  @Get(['/v1/models', '/v1beta/models'])
  async list(@Req() req: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const format = clientFormatOf(req.url, req.headers);
    const api = MODELS_APIS[format];
    try {
      const key = await this.keys.authenticate(apiKeyOf(req.headers, req.query, api.keySources));
      const body = this.lists.get(`${format}:${key.group}`) ?? JSON.stringify(api.list([]));
      void reply.type('application/json').send(body);
    } catch (err) {
      sendError(reply, asGatewayError(err));
    }
  }

  @Get(['/v1/models/:id', '/v1beta/models/:id'])
  async retrieve(
    @Param('id') id: string,
    @Req() req: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const api = MODELS_APIS[clientFormatOf(req.url, req.headers)];
    try {
      const key = await this.keys.authenticate(apiKeyOf(req.headers, req.query, api.keySources));
      const model = this.groups.get(key.group)?.get(id);
      if (!model) {
        throw new GatewayError('model_not_found', `The model \`${id.slice(0, 100)}\` does not exist.`, {
          param: 'model',
        });
      }
      void reply.type('application/json').send(api.one(model));
    } catch (err) {
      sendError(reply, asGatewayError(err));
    }
  }
}

/** A model's aliases as models of their own, where it lists them. */
const listedAliases = (m: ModelConfig): ModelCard[] =>
  m.list_aliases === true
    ? (m.aliases ?? []).map((id) => ({ id, created: m.created, owned_by: m.owned_by }))
    : [];
