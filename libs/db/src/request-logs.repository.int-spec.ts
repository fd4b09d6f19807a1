import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createTestDatabase, requestLogJob, type TestDatabase } from '../../../test/support/db.js';
import { logPartitionsAround } from './log-partitions.js';
import {
  dropLogPartitionsBefore,
  ensureLogPartitions,
  listLogPartitions,
} from './request-log-partitions.repository.js';
import { insertRequestLogs } from './request-logs.repository.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase('logs');
}, 30_000);
afterAll(async () => {
  await t.drop();
}, 30_000);

/** Which physical partition holds a request's row. */
async function partitionOf(requestId: string): Promise<string | undefined> {
  const { rows } = await sql<{ part: string }>`
    select tableoid::regclass::text as part from request_logs where request_id = ${requestId}`.execute(t.db);
  return rows[0]?.part;
}

const PRICES = {
  input: 3e9,
  output: 15e9,
  cacheRead: 3e8,
  cacheWrite5m: 375e7,
  cacheWrite1h: 3e9,
  tier: null,
};

describe('request logs', () => {
  it('stores every field of a job', async () => {
    const job = requestLogJob({
      keyId: '00000000-0000-4000-8000-000000000001',
      userId: '00000000-0000-4000-8000-000000000002',
      stream: true,
      ttftMs: 3.6,
      costNanos: 42,
      usage: {
        inputTokens: 13,
        outputTokens: 2,
        cachedTokens: 3,
        cacheWrite5mTokens: 4,
        cacheWrite1hTokens: 5,
        reasoningTokens: 1,
        audioInputTokens: 1,
        cachedAudioInputTokens: 2,
        audioOutputTokens: 1,
        webSearchRequests: 2,
        inputCharacters: 3,
      },
      usageEstimated: true,
      prices: {
        ...PRICES,
        fallback: ['cache_write_1h'],
        inputAudio: 1e9,
        cacheReadAudio: 1e8,
        outputAudio: 8e10,
        fees: { webSearchRequests: 1e10 },
      },
      requestedModel: 'fast',
      fallbackFrom: 'mock-big',
      attempts: [
        { providerId: 'p0', status: 503, outcome: 'http_error', latencyMs: 3, model: 'mock-big' },
        { providerId: 'demo-openai', status: 200, outcome: 'ok', latencyMs: 9, model: 'mock-gpt' },
      ],
    });
    expect(await insertRequestLogs(t.db, [job])).toBe(1);
    const row = await t.db
      .selectFrom('request_logs')
      .selectAll()
      .where('request_id', '=', job.requestId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      request_id: job.requestId,
      started_at: new Date(job.startedAt),
      key_id: job.keyId,
      user_id: job.userId,
      team_id: null,
      group_name: 'default',
      endpoint: '/v1/chat/completions',
      model: 'mock-gpt',
      requested_model: 'fast',
      fallback_from: 'mock-big',
      provider_id: 'demo-openai',
      upstream_model: 'mock-gpt',
      stream: true,
      status: 200,
      error_code: null,
      latency_ms: 12,
      ttft_ms: 4,
      input_tokens: 13,
      output_tokens: 2,
      cached_tokens: 3,
      uncached_input_tokens: 1,
      cache_write_5m_tokens: 4,
      cache_write_1h_tokens: 5,
      reasoning_tokens: 1,
      audio_input_tokens: 1,
      cached_audio_input_tokens: 2,
      audio_output_tokens: 1,
      web_search_requests: 2,
      input_characters: 3,
      prices: {
        ...PRICES,
        fallback: ['cache_write_1h'],
        inputAudio: 1e9,
        cacheReadAudio: 1e8,
        outputAudio: 8e10,
        fees: { webSearchRequests: 1e10 },
      },
      usage_estimated: true,
      adjustments: [],
      repairs: [],
      cost_nanos: '42',
      attempts: job.attempts,
    });
  });

  it('stores 0 audio, searches and characters for a usage without them, null for no usage', async () => {
    const counted = requestLogJob();
    const none = requestLogJob({ usage: null });
    await insertRequestLogs(t.db, [counted, none]);
    const rows = await t.db
      .selectFrom('request_logs')
      .select([
        'request_id',
        'audio_input_tokens',
        'cached_audio_input_tokens',
        'audio_output_tokens',
        'web_search_requests',
        'input_characters',
      ])
      .where('request_id', 'in', [counted.requestId, none.requestId])
      .execute();
    expect(rows).toEqual(
      expect.arrayContaining([
        {
          request_id: counted.requestId,
          audio_input_tokens: 0,
          cached_audio_input_tokens: 0,
          audio_output_tokens: 0,
          web_search_requests: 0,
          input_characters: 0,
        },
        {
          request_id: none.requestId,
          audio_input_tokens: null,
          cached_audio_input_tokens: null,
          audio_output_tokens: null,
          web_search_requests: null,
          input_characters: null,
        },
      ]),
    );
  });

  it('inserts a redelivered job once, also within one batch', async () => {
    const job = requestLogJob();
    expect(await insertRequestLogs(t.db, [job, job])).toBe(1);
    expect(await insertRequestLogs(t.db, [job, requestLogJob()])).toBe(1);
    const { count } = await t.db
      .selectFrom('request_logs')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('request_id', '=', job.requestId)
      .executeTakeFirstOrThrow();
    expect(count).toBe('1');
  });

  it('routes rows to the month partition, and outside them to the default partition', async () => {
    const now = requestLogJob();
    const old = requestLogJob({ startedAt: '2001-02-03T04:05:06.000Z' });
    await insertRequestLogs(t.db, [now, old]);
    expect(await partitionOf(now.requestId)).toBe(logPartitionsAround(new Date(now.startedAt), 0)[0]?.name);
    expect(await partitionOf(old.requestId)).toBe('request_logs_default');
  });

  it('creates a missing month partition by moving the rows the default partition holds for it', async () => {
    const stray = requestLogJob({ startedAt: '2001-02-10T00:00:00.000Z' });
    await insertRequestLogs(t.db, [stray]);
    expect(await ensureLogPartitions(t.db, new Date('2001-02-15T00:00:00Z'), 1)).toEqual([
      'request_logs_p2001_02',
      'request_logs_p2001_03',
    ]);
    expect(await ensureLogPartitions(t.db, new Date('2001-02-15T00:00:00Z'), 1)).toEqual([]);
    expect(await partitionOf(stray.requestId)).toBe('request_logs_p2001_02');
    // The moved row still deduplicates a redelivery.
    expect(await insertRequestLogs(t.db, [stray])).toBe(0);
  });

  it('drops whole months older than the retention cutoff', async () => {
    await ensureLogPartitions(t.db, new Date('2001-05-01T00:00:00Z'), 0);
    expect(await dropLogPartitionsBefore(t.db, new Date('2001-04-01T00:00:00Z'))).toEqual([
      'request_logs_p2001_02',
      'request_logs_p2001_03',
    ]);
    const left = (await listLogPartitions(t.db)).map((p) => p.name);
    expect(left[0]).toBe('request_logs_p2001_05');
  });

  it('splits a batch larger than the bind-parameter limit into several statements', async () => {
    const jobs = Array.from({ length: 4_000 }, () => requestLogJob());
    expect(await insertRequestLogs(t.db, jobs)).toBe(4_000);
  });
});
