import { configDocumentOf, type ConfigIssue, type GatewayConfig, LIVE_SECTIONS } from '#libs/config';
import { validateConfig } from '#libs/gateway-config';

/** What a configuration version holds: the live sections, as entered (the schema's input shape). */
export type LiveDocument = Readonly<Record<(typeof LIVE_SECTIONS)[number], unknown>>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The live sections of a whole file's document (what the first boot seeds). */
export function liveSectionsOf(fileDocument: unknown): LiveDocument {
  const doc = isRecord(fileDocument) ? fileDocument : {};
  return Object.fromEntries(LIVE_SECTIONS.map((s) => [s, doc[s]])) as LiveDocument;
}

/** The file's document with its live sections replaced by a version's: the whole configuration. */
export function composeDocument(fileDocument: unknown, live: unknown): Record<string, unknown> {
  const base = isRecord(fileDocument) ? fileDocument : {};
  const sections = isRecord(live) ? live : {};
  const keys = Object.keys(sections).filter((k) => !(LIVE_SECTIONS as readonly string[]).includes(k));
  return {
    ...base,
    ...Object.fromEntries(LIVE_SECTIONS.map((s) => [s, sections[s]])),
    // Anything else in a version is refused by the schema's strict root, naming the field.
    ...Object.fromEntries(keys.map((k) => [k, sections[k]])),
  };
}

/** Validates a version against the one schema, composed with the file (server settings). */
export function validateLive(
  fileDocument: unknown,
  live: unknown,
): { ok: true; config: GatewayConfig } | { ok: false; issues: ConfigIssue[] } {
  return validateConfig(composeDocument(fileDocument, live));
}

/** The stored secrets a configuration names, to open them once per version. */
export function secretIdsOf(config: GatewayConfig): string[] {
  return [...new Set(config.providers.flatMap((p) => (p.api_key_secret ? [p.api_key_secret] : [])))];
}

/**
 * The configuration a one-off command should act on: the file's, with the newest stored version's
 * live sections when the store is the source (a group added in the console exists for
 * `key:create` too). `readLive` reads that version's document, or null when there is none.
 */
export async function currentConfig(
  fileConfig: GatewayConfig,
  readLive: () => Promise<unknown>,
): Promise<GatewayConfig> {
  if (fileConfig.config.source === 'file') return fileConfig;
  const live = await readLive();
  const fileDocument = configDocumentOf(fileConfig);
  if (live === null || fileDocument === undefined) return fileConfig;
  const checked = validateLive(fileDocument, live);
  return checked.ok ? checked.config : fileConfig;
}
