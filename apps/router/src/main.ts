import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('router');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { runMain } = await import('#libs/runtime');
const { createRouterApp } = await import('./router.app.js');

runMain({
  name: 'router',
  create: (env, config) => createRouterApp(env, config),
  port: (env) => env.routerPort,
});
