import { exitUnlessSupportedNode } from '#libs/node-runtime';

exitUnlessSupportedNode('console');
// Loaded after the check: on an older Node a dependency would fail before the check could speak.
const { runMain } = await import('#libs/runtime');
const { createConsoleApp } = await import('./console.app.js');

runMain({
  name: 'console',
  create: (env, config) => createConsoleApp(env, config),
  port: (env) => env.consolePort,
});
