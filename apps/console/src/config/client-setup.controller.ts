import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type ClientSetup, CLIENT_SETUP } from '#libs/providers';
import { Allow, EVERY_ROLE } from '../session/principal.js';
import { SessionGuard } from '../session/session.guard.js';

/**
 * How clients point their SDKs at the gateway, for the connect panel of the keys page: which SDK
 * takes which address is vendor knowledge, so the web code gets it here instead of holding it.
 */
@ApiTags('keys')
@ApiCookieAuth()
@ApiBearerAuth()
@Controller('api')
@UseGuards(SessionGuard)
export class ClientSetupController {
  @Get('client-setup')
  @Allow(...EVERY_ROLE)
  @ApiOperation({
    summary:
      'How clients reach the gateway: the base address each SDK takes and sample code, for the connect panel',
  })
  clientSetup(): ClientSetup {
    return CLIENT_SETUP;
  }
}
