/**
 * A provider's probe, as the router runs it on a schedule and the console's "test" action runs it
 * once with settings not saved yet: where it goes and with which headers, how its answer and its
 * failures are judged, and what an error answer says. Pure but for reading a body's first bytes;
 * each app sends the request with its own HTTP client.
 */
export * from './src/probe-request.js';
export * from './src/probe-answer.js';
export * from './src/redact.js';
