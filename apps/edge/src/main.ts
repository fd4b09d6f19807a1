import { runMain } from '#libs/runtime';
import { createEdgeApp } from './edge.app.js';

runMain({
  name: 'edge',
  create: (env, config) => createEdgeApp(env, config),
  port: (env) => env.edgePort,
  // The drain, then the final log flush (and the queue's close), with a margin.
  shutdownBudgetMs: ({ edge }) =>
    edge.shutdown_delay_ms + edge.shutdown_timeout_ms + 2 * edge.log_flush_timeout_ms + 5_000,
});
