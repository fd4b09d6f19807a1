import { Body, Controller, Get, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type ProviderConfig } from '#libs/config';
import { type PricingProposal, proposePricing } from '#libs/price-catalog';
import { catalogLookupOf } from '#libs/providers';
import { ApiError } from '../http/api-error.js';
import { validate } from '../http/validate.js';
import { jsonSchema } from '../openapi.js';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import { Allow, CurrentPrincipal, isAdmin, type Principal, READERS } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { draftCatalogPricesSchema, providerTestSchema } from './config-forms.schema.js';
import { CONFIG_EDITORS } from './config.controller.js';
import { type ProviderTestResult, ProviderTestService } from './provider-test.service.js';

/**
 * What the console's configuration forms ask before anything is saved: a provider tried with the
 * settings and key entered, and the catalog's prices for a model of a provider not saved yet.
 */
@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/config')
@UseGuards(SessionGuard)
@Allow(...CONFIG_EDITORS)
export class ConfigFormsController {
  constructor(private readonly tester: ProviderTestService) {}

  @Post('providers/test')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Send a provider's probe (its model listing) once with the entered settings and key: status, latency, the upstream's error",
  })
  @ApiBody({ schema: jsonSchema(providerTestSchema) })
  test(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Body() body: unknown,
  ): Promise<ProviderTestResult> {
    const caller = p.kind === 'session' ? `user:${p.user.id}` : `token:${p.token.id ?? 'bootstrap'}`;
    return this.tester.test(validate(providerTestSchema, body, 'body'), { caller, admin: isAdmin(p), by });
  }

  @Get('catalog-prices')
  @Allow(...READERS)
  @ApiOperation({
    summary: "The price catalog's prices for a model of a provider of this type (saved or not)",
  })
  catalogPrices(@Query() query: unknown): { proposal: PricingProposal } {
    const q = validate(draftCatalogPricesSchema, query, 'query');
    const { model, ...settings } = q;
    // A draft entry: the descriptor's lookup reads only the settings it names.
    const draft = { ...settings, id: 'draft', base_url: (q.base_url ?? '').replace(/\/+$/, '') };
    const proposal = proposePricing(catalogLookupOf(draft as unknown as ProviderConfig, model));
    if (proposal === null)
      throw new ApiError(
        'not_found',
        `The price catalog has no prices for this model of a ${q.type} provider.`,
      );
    return { proposal };
  }
}
