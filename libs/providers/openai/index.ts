export * from './endpoint.js';
export * from './request.js';
export * from './response.js';
export * from './stream.js';
export * from './endpoints.js';
export * from './chat-client.js';
export * from './chat-provider.js';
export * from './responses-client.js';
