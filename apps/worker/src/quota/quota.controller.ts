import { BadRequestException, Body, Controller, HttpCode, Post } from '@nestjs/common';
import { z } from 'zod';
import { accountSlot } from '#libs/quota';
import { QuotaReconciler } from './quota-reconciler.service.js';

const bodySchema = z
  .strictObject({
    userIds: z.array(z.uuid()).min(1).max(10_000).optional(),
    teamIds: z.array(z.uuid()).min(1).max(10_000).optional(),
  })
  .optional()
  .transform((b) => b ?? {});

/**
 * On-demand reconciliation on the worker's internal port (never exposed to clients):
 * `POST /quota/reconcile` sweeps every loaded user; `{ "userIds": [...] }` rebuilds those users'
 * copies from Postgres whether or not Redis held them, and returns their balances; `teamIds` the
 * same for teams (their balances keyed `team:<id>`).
 */
@Controller('quota')
export class QuotaController {
  constructor(private readonly reconciler: QuotaReconciler) {}

  @Post('reconcile')
  @HttpCode(200)
  async reconcile(@Body() body: unknown): Promise<object> {
    const parsed = bodySchema.safeParse(body ?? undefined);
    if (!parsed.success) throw new BadRequestException(parsed.error.issues.map((i) => i.message).join('; '));
    const { userIds = [], teamIds = [] } = parsed.data;
    if (userIds.length === 0 && teamIds.length === 0) return await this.reconciler.sweep();
    const balances = await this.reconciler.reconcileUsers([
      ...userIds,
      ...teamIds.map((id) => accountSlot({ kind: 'team', id })),
    ]);
    return {
      balances: Object.fromEntries([...balances].map(([u, b]) => [u, b === null ? null : b.toString()])),
    };
  }
}
