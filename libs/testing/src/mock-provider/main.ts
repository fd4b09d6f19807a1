import { exitUnlessSupportedNode } from '#libs/node-runtime';
import type { MockBehaviourPatch } from './behaviour.js';

exitUnlessSupportedNode('mock-provider');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { startMockProvider } = await import('./server.js');

/**
 * Standalone mock upstream (`npm run mock-provider`): the local demo provider and the benchmark's
 * baseline. Driven at runtime through `/__mock/*`.
 */
// eslint-disable-next-line no-restricted-syntax -- a standalone test tool outside the gateway's config; it has no libs/config of its own
const env = process.env;

function num(name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got "${raw}"`);
  return n;
}

const patch: MockBehaviourPatch = {};
const latencyMs = num('MOCK_LATENCY_MS');
const ttftMs = num('MOCK_TTFT_MS');
const chunkCount = num('MOCK_CHUNKS');
const failureRate = num('MOCK_FAILURE_RATE');
if (latencyMs !== undefined) patch.latencyMs = latencyMs;
if (ttftMs !== undefined) patch.ttftMs = ttftMs;
if (chunkCount !== undefined) patch.chunkCount = chunkCount;
if (failureRate !== undefined) patch.failureRate = failureRate;

const mock = await startMockProvider({
  ...patch,
  port: num('MOCK_PROVIDER_PORT') ?? 4010,
  host: env.MOCK_PROVIDER_HOST || '127.0.0.1',
});
console.log(`mock provider listening on ${mock.url}`);

let closing = false;
const shutdown = (signal: string): void => {
  if (closing) return;
  closing = true;
  console.log(`mock provider: ${signal}, closing`);
  mock.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
