export { geminiAdapter, geminiProvider } from './adapter.js';
export { countContentTokensApi, generateContentApi, geminiClient } from './client-api.js';
export { geminiModelsApi } from './models.js';
export { geminiContextExceeded } from './context-window.js';
export { geminiWire } from './wire-format.js';
export { countTokensRoute, generateContentRoute } from './native.js';
export * from './wire.js';
export * from './descriptor.js';
