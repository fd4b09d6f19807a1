import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { type z } from 'zod';
import { type GatewayConfig, type gatewayConfigSchemaWith } from './gateway.schema.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${String(seg)}` : String(seg)),
    '',
  );
}

function formatIssues(source: string, issues: readonly z.core.$ZodIssue[]): string {
  const lines = issues.map((i) => `  ${formatPath(i.path) || '(root)'}: ${i.message}`);
  return `invalid gateway config ${source}:\n${lines.join('\n')}`;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const SOURCE_DOCUMENT = Symbol('gateway config source document');

/** Keeps the document as written beside what the schema made of it (see configDocumentOf). */
function withSource(config: GatewayConfig, doc: unknown): GatewayConfig {
  Object.defineProperty(config, SOURCE_DOCUMENT, { value: deepFreeze(structuredClone(doc)) });
  return deepFreeze(config);
}

/**
 * The document a config was parsed from (the schema's input shape, defaults not filled in): what a
 * configuration version is composed with and validated against, by the same schema. Undefined for
 * a config that did not come from parseConfig or validateConfig.
 */
export function configDocumentOf(config: GatewayConfig): unknown {
  return (config as { [SOURCE_DOCUMENT]?: unknown })[SOURCE_DOCUMENT];
}

export interface ConfigIssue {
  /** Where, as `providers[2].base_url`; `(root)` for the document itself. */
  readonly path: string;
  readonly message: string;
}

/** Parsing a configuration with one schema: the gateway's, composed with its provider types. */
export interface ConfigParser {
  /** Validates an already-parsed document; throws ConfigError naming every bad field. */
  parseConfig(doc: unknown, source?: string): GatewayConfig;
  /** The same checks as parseConfig, as values: what the API and the console show beside each field. */
  validateConfig(doc: unknown): { ok: true; config: GatewayConfig } | { ok: false; issues: ConfigIssue[] };
  loadConfigFile(path: string): GatewayConfig;
}

/** `schemaOf` is read at each parse, so the schema may be composed on first use. */
export function configParser(schemaOf: () => ReturnType<typeof gatewayConfigSchemaWith>): ConfigParser {
  const parseConfig = (doc: unknown, source = '(inline)'): GatewayConfig => {
    const result = schemaOf().safeParse(doc);
    if (!result.success) throw new ConfigError(formatIssues(source, result.error.issues));
    return withSource(result.data, doc);
  };
  return {
    parseConfig,
    validateConfig(doc) {
      const result = schemaOf().safeParse(doc);
      if (result.success) return { ok: true, config: withSource(result.data, doc) };
      return {
        ok: false,
        issues: result.error.issues.map((i) => ({
          path: formatPath(i.path) || '(root)',
          message: i.message,
        })),
      };
    },
    loadConfigFile: (path) => parseConfig(loadConfigDocument(path), path),
  };
}

/** The file's YAML as written (the schema's input shape), for composing with stored versions. */
export function loadConfigDocument(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read gateway config ${path}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`gateway config ${path} is not valid YAML: ${(err as Error).message}`);
  }
  return doc;
}
