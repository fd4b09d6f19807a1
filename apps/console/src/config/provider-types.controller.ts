import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Allow, READERS } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { type ProviderTypeView, providerTypeViews } from './provider-types.js';

/**
 * The provider types, for the console's provider form and providers table: the web code renders
 * them from this answer, so it holds no list of types and no per-type rule.
 */
@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/config')
@UseGuards(SessionGuard)
export class ProviderTypesController {
  // The registry is fixed when the console starts: computed once.
  private readonly types = providerTypeViews();

  @Get('provider-types')
  @Allow(...READERS)
  @ApiOperation({
    summary: 'The provider types, their settings (JSON Schema) and credential rules, for the provider form',
  })
  providerTypes(): { types: ProviderTypeView[] } {
    return { types: this.types };
  }
}
