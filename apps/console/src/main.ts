import { runMain } from '#libs/runtime';
import { createConsoleApp } from './console.app.js';

runMain({
  name: 'console',
  create: (env, config) => createConsoleApp(env, config),
  port: (env) => env.consolePort,
});
