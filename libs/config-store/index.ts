export * from './src/keyring.js';
export * from './src/envelope.js';
export * from './src/secrets.repository.js';
export * from './src/versions.repository.js';
export * from './src/live-document.js';
export * from './src/config-feed.js';
export * from './src/live-config.providers.js';
