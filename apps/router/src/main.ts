import { runMain } from '#libs/runtime';
import { createRouterApp } from './router.app.js';

runMain({
  name: 'router',
  create: (env, config) => createRouterApp(env, config),
  port: (env) => env.routerPort,
});
