import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('worker');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { runMain } = await import('#libs/runtime');
const { createWorkerApp } = await import('./worker.app.js');

runMain({
  name: 'worker',
  create: (env, config) => createWorkerApp(env, config),
  port: (env) => env.workerPort,
});
