import { runMain } from '#libs/runtime';
import { createEdgeApp } from './edge.app.js';

runMain({ name: 'edge', create: (env, config) => createEdgeApp(env, config), port: (env) => env.edgePort });
