// Imported first by every entry point, so it must stay free of dependencies (node: builtins only).
export * from './src/required-node.js';
export * from './src/exit-unless-supported.js';
