import { Body, Controller, Get, Header, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { ApiListQuery } from '../http/api-list-query.js';
import { cursorSchema, limitSchema } from '../http/page.js';
import { validate } from '../http/validate.js';
import { jsonSchema } from '../openapi.js';
import { type AuditBy, AuditedBy } from '../audit/audit-context.js';
import {
  Allow,
  CurrentPrincipal,
  isAdmin,
  type Principal,
  READERS,
  type Role,
} from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import {
  importConfigSchema,
  saveConfigSchema,
  storeSecretSchema,
  validateConfigSchema,
} from './config.schema.js';
import { type ConfigCheck, ConfigService, type ConfigView } from './config.service.js';

/** Who may change the configuration (admins always may): also checked before a large body is read. */
export const CONFIG_EDITORS: Role[] = ['operator'];

const authorOf = (p: Principal): string => (p.kind === 'session' ? p.user.email : p.token.name);
const versionSchema = z.coerce.number().int().positive().max(2_147_483_647);
/** A page of versions (docs/console-api.md, Pagination): up to 500, as before cursors. */
const listVersionsSchema = z.strictObject({
  cursor: cursorSchema((parts) =>
    parts.length === 1 && Number.isInteger(parts[0]) && (parts[0] as number) > 0
      ? (parts[0] as number)
      : null,
  ).optional(),
  limit: limitSchema(500),
});

/** Providers, models and groups, changed live: every change a version (docs/console-api.md). */
@ApiTags('admin')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api/admin/config')
@UseGuards(SessionGuard)
@Allow(...CONFIG_EDITORS)
export class ConfigController {
  constructor(private readonly config: ConfigService) {}

  @Get()
  @Allow(...READERS)
  @ApiOperation({ summary: 'The newest configuration version (providers, models, groups), secrets as hints' })
  current(): Promise<ConfigView> {
    return this.config.current();
  }

  @Put()
  @ApiOperation({ summary: 'Save a new version made on base_version (409 if another change came first)' })
  @ApiBody({ schema: jsonSchema(saveConfigSchema) })
  save(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Body() body: unknown,
  ): Promise<{ version: number; warnings: string[] }> {
    return this.config.save(
      validate(saveConfigSchema, body, 'body'),
      authorOf(p),
      p.kind === 'session' ? 'console' : 'api',
      by,
      isAdmin(p),
    );
  }

  @Post('validate')
  @ApiOperation({ summary: 'Check a document against the one schema without saving: every issue, by field' })
  @ApiBody({ schema: jsonSchema(validateConfigSchema) })
  check(@CurrentPrincipal() p: Principal, @Body() body: unknown): Promise<ConfigCheck> {
    return this.config.check(validate(validateConfigSchema, body, 'body').document, isAdmin(p));
  }

  @Get('versions')
  @Allow(...READERS)
  @ApiListQuery(listVersionsSchema)
  @ApiOperation({
    summary: 'A page of versions, newest first: who changed the configuration, when and why',
  })
  async versions(@Query() query: unknown) {
    return this.config.versions(validate(listVersionsSchema, query, 'query'));
  }

  @Get('versions/:version')
  @Allow(...READERS)
  @ApiOperation({ summary: 'One version, whole' })
  version(@Param('version') version: string) {
    return this.config.version(validate(versionSchema, version, 'version'));
  }

  @Post('secrets')
  @ApiOperation({
    summary: 'Store a provider key encrypted; answers its id (for api_key_secret) and a hint, never the key',
  })
  @ApiBody({ schema: jsonSchema(storeSecretSchema) })
  storeSecret(
    @CurrentPrincipal() p: Principal,
    @AuditedBy() by: AuditBy,
    @Body() body: unknown,
  ): Promise<{ id: string; hint: string }> {
    return this.config.storeSecret(validate(storeSecretSchema, body, 'body'), authorOf(p), by);
  }

  @Get('export')
  @Allow(...READERS)
  @Header('content-type', 'application/yaml; charset=utf-8')
  @Header('content-disposition', 'attachment; filename="gateway.yaml"')
  @ApiOperation({ summary: 'The whole configuration as a gateway.yaml (import takes it back)' })
  export(): Promise<string> {
    return this.config.exportYaml();
  }

  @Post('import')
  @ApiOperation({ summary: "A gateway.yaml's providers, models and groups as a new version" })
  @ApiBody({ schema: jsonSchema(importConfigSchema) })
  import(@CurrentPrincipal() p: Principal, @AuditedBy() by: AuditBy, @Body() body: unknown) {
    return this.config.importYaml(validate(importConfigSchema, body, 'body'), authorOf(p), by, isAdmin(p));
  }
}
