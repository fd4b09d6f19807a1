import { runMain } from '#libs/runtime';
import { createWorkerApp } from './worker.app.js';

runMain({
  name: 'worker',
  create: (env, config) => createWorkerApp(env, config),
  port: (env) => env.workerPort,
});
