import { Controller, Get } from '@nestjs/common';
import { type RouteCandidate } from '#libs/routing';
import { RoutePublisher } from './route-publisher.service.js';

export interface RoutesResponse {
  readonly version: number | null;
  readonly generatedAt: string | null;
  /** Whether this replica holds the leader lease (the one probing and publishing). */
  readonly leader: boolean;
  /** Model ID -> candidates in rank order, each with its state and the reason for it. */
  readonly models: Readonly<Record<string, readonly RouteCandidate[]>>;
}

@Controller()
export class RoutesController {
  constructor(private readonly publisher: RoutePublisher) {}

  @Get('/routes')
  routes(): RoutesResponse {
    const { leader, table } = this.publisher.snapshot();
    return {
      version: table?.version ?? null,
      generatedAt: table?.generatedAt ?? null,
      leader,
      models: table?.models ?? {},
    };
  }
}
