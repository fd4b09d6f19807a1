import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Catalog, type ProviderRuntime } from '#libs/config';
import { profileOf } from '#libs/providers';
import { type ConsoleSettings } from '../console-settings.js';
import { ApiError, notFound } from '../http/api-error.js';
import { validate } from '../http/validate.js';
import { Allow, READERS } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { CATALOG, SETTINGS } from '../tokens.js';
import { catalogPricesFor, catalogPricesQuerySchema, type CatalogPricesView } from './catalog-prices.js';

export interface ProviderView {
  readonly id: string;
  readonly type: string;
  /** The profile of a provider of a type with several (its descriptor's); null for other types. */
  readonly vendor: string | null;
  readonly priority: number;
  readonly weight: number;
  readonly models: string[];
  /** Why the gateway cannot use it (e.g. its API key env var is unset), or null. */
  readonly disabledReason: string | null;
}

export interface ProvidersResponse {
  readonly providers: ProviderView[];
  /** The router's GET /routes (ranked candidates per model with state and reason), or null. */
  readonly routes: unknown;
  readonly routerError: string | null;
}

const ROUTER_TIMEOUT_MS = 2_000;

export function providerView(p: ProviderRuntime): ProviderView {
  return {
    id: p.id,
    type: p.type,
    vendor: profileOf(p),
    priority: p.priority,
    weight: p.weight,
    models: p.models.map((m) => m.id),
    disabledReason: p.disabledReason,
  };
}

/** Provider health as the router sees it, beside the configured providers. */
@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/providers')
@UseGuards(SessionGuard)
@Allow(...READERS)
export class ProvidersController {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  @Get(':id/catalog-prices')
  @ApiOperation({
    summary: "The price catalog's prices for a model of this provider, beside the configured ones",
  })
  @ApiQuery({ name: 'model', required: true, type: String })
  catalogPrices(@Param('id') id: string, @Query() query: unknown): { prices: CatalogPricesView } {
    const { model } = validate(catalogPricesQuerySchema, query, 'query');
    const provider = this.catalog.providers.get(id);
    if (provider === undefined) throw notFound('Provider');
    const prices = catalogPricesFor(provider, model, this.catalog.models);
    if (prices === null)
      throw new ApiError(
        'not_found',
        `The price catalog has no prices for this model of a ${provider.type} provider.`,
      );
    return { prices };
  }

  @Get()
  @ApiOperation({ summary: "Configured providers and the router's live route table" })
  async providers(): Promise<ProvidersResponse> {
    const providers = [...this.catalog.providers.values()].map(providerView);
    try {
      const res = await fetch(`${this.settings.routerUrl}/routes`, {
        signal: AbortSignal.timeout(ROUTER_TIMEOUT_MS),
      });
      if (!res.ok) return { providers, routes: null, routerError: `the router answered HTTP ${res.status}` };
      return { providers, routes: await res.json(), routerError: null };
    } catch (err) {
      const reason =
        (err as Error).name === 'TimeoutError' ? `no answer within ${ROUTER_TIMEOUT_MS} ms` : 'unreachable';
      return {
        providers,
        routes: null,
        routerError: `the router at ${this.settings.routerUrl} is ${reason}`,
      };
    }
  }
}
