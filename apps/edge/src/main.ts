import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('edge');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { runMain } = await import('#libs/runtime');

runMain({
  name: 'edge',
  // Loaded where it runs: a cluster primary (EDGE_PROCESSES above 1) never builds the app, so it
  // does not hold the whole module graph in memory beside its workers.
  create: async (env, config) => (await import('./edge.app.js')).createEdgeApp(env, config),
  port: (env) => env.edgePort,
  processes: (env) => env.edgeProcesses,
  // The drain, then the final log flush (and the queue's close), with a margin.
  shutdownBudgetMs: ({ edge }) =>
    edge.shutdown_delay_ms + edge.shutdown_timeout_ms + 2 * edge.log_flush_timeout_ms + 5_000,
});
