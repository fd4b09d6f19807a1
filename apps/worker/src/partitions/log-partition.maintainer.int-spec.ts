import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseConfig } from '#libs/gateway-config';
import { ensureLogPartitions, insertRequestLogs, listLogPartitions, logPartitionOf } from '#libs/db';
import { createTestDatabase, requestLogJob, type TestDatabase } from '../../../../test/support/db.js';
import { LogPartitionMaintainer, retentionCutoff } from './log-partition.maintainer.js';

function configWithRetention(days: number) {
  return parseConfig({
    worker: { log_retention_days: days },
    providers: [{ id: 'p', type: 'openai', base_url: 'http://127.0.0.1:1/v1', models: ['m'] }],
    models: [
      { id: 'm', owned_by: 'o', created: 1, pricing: { input_per_million: 1, output_per_million: 1 } },
    ],
    groups: { default: ['m'] },
  });
}

const NOW = new Date(Date.UTC(2026, 10, 22, 12)); // 2026-11-22
const names = async (t: TestDatabase): Promise<string[]> =>
  (await listLogPartitions(t.db)).map((p) => p.name);

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase('retention');
});

afterAll(async () => {
  await t.drop();
});

describe('retentionCutoff', () => {
  it('is now minus the retention, or null when retention is 0 (keep everything)', () => {
    expect(retentionCutoff(NOW, 30)).toEqual(new Date(Date.UTC(2026, 9, 23, 12)));
    expect(retentionCutoff(NOW, 0)).toBeNull();
  });
});

describe('LogPartitionMaintainer', () => {
  it('keeps every partition when log_retention_days is 0', async () => {
    await ensureLogPartitions(t.db, new Date(Date.UTC(2025, 0, 10)), 1);
    const maintainer = new LogPartitionMaintainer(t.db, configWithRetention(0));
    const { dropped } = await maintainer.maintain(NOW);
    expect(dropped).toEqual([]);
    expect(await names(t)).toEqual(
      expect.arrayContaining(['request_logs_p2025_01', 'request_logs_p2025_02']),
    );
  });

  it('keeps the months ahead and drops whole months that ended before the retention cutoff, rows included', async () => {
    // 2026-08 ends 2026-09-01, before the 60-day cutoff (2026-09-23); 2026-09 ends after it: kept.
    await ensureLogPartitions(t.db, new Date(Date.UTC(2026, 6, 10)), 2);
    const old = requestLogJob({ startedAt: new Date(Date.UTC(2026, 7, 5)).toISOString() });
    const kept = requestLogJob({ startedAt: new Date(Date.UTC(2026, 8, 5)).toISOString() });
    await insertRequestLogs(t.db, [old, kept]);

    const maintainer = new LogPartitionMaintainer(t.db, configWithRetention(60));
    const { dropped } = await maintainer.maintain(NOW);

    expect(dropped.sort()).toEqual([
      'request_logs_p2025_01',
      'request_logs_p2025_02',
      'request_logs_p2026_07',
      'request_logs_p2026_08',
    ]);
    const left = await names(t);
    expect(left).toEqual(
      expect.arrayContaining([
        'request_logs_p2026_09',
        'request_logs_p2026_11',
        logPartitionOf(2027, 0).name,
      ]),
    );
    expect(left.filter((n) => n < 'request_logs_p2026_09')).toEqual([]);
    const rows = await t.db.selectFrom('request_logs').select('request_id').execute();
    expect(rows.map((r) => r.request_id)).toEqual([kept.requestId]);

    // A second pass finds nothing more to do.
    expect(await maintainer.maintain(NOW)).toEqual({ created: [], dropped: [], chargesRetired: 0 });
  });
});
