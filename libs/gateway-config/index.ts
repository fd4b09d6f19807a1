/**
 * The gateway's configuration schema, whole: libs/config's sections (vendor-free) with the
 * provider entry composed from the registry's descriptors (libs/providers). Every app, script and
 * test parses its configuration here.
 */
export * from './src/gateway-config.js';
