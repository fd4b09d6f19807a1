import { Controller, Get } from '@nestjs/common';
import { RoutesReport, type RoutesResponse } from './routes-report.service.js';

export type { RoutesResponse } from './routes-report.service.js';

@Controller()
export class RoutesController {
  constructor(private readonly report: RoutesReport) {}

  @Get('/routes')
  routes(): RoutesResponse {
    return this.report.build();
  }
}
