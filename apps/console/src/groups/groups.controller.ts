import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Catalog } from '#libs/config';
import { type ConsoleSettings } from '../console-settings.js';
import { Allow, CurrentPrincipal, EVERY_ROLE, READERS, type Principal } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';
import { CATALOG, SETTINGS } from '../tokens.js';
import { allowedGroups, type GroupView, groupViews } from './group-access.js';

@ApiTags('groups')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api')
@UseGuards(SessionGuard)
export class GroupsController {
  constructor(
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(SETTINGS) private readonly settings: ConsoleSettings,
  ) {}

  @Get('groups')
  @Allow(...EVERY_ROLE)
  @ApiOperation({ summary: 'The groups (and their models) the caller may give keys' })
  groups(@CurrentPrincipal() p: Principal): { groups: GroupView[] } {
    const names =
      p.kind === 'token'
        ? [...this.catalog.groups.keys()]
        : allowedGroups(p.user, this.settings.defaultGroups, this.catalog);
    return { groups: groupViews(names, this.catalog) };
  }

  @Get('admin/groups')
  @Allow(...READERS)
  @ApiOperation({ summary: 'Every group in the config with its models' })
  allGroups(): { groups: GroupView[] } {
    return { groups: groupViews([...this.catalog.groups.keys()], this.catalog) };
  }
}
