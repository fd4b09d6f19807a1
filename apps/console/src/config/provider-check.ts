import { type ConfigIssue, type GatewayConfig, type ProviderConfig } from '#libs/config';
import { validateLive } from '#libs/config-store';

export type ProviderCheck =
  | { readonly ok: true; readonly config: GatewayConfig; readonly provider: ProviderConfig }
  | { readonly ok: false; readonly issues: ConfigIssue[] };

/** The model ids an entry serves, as far as they read (the schema names whatever does not). */
function servedIds(models: unknown): string[] {
  if (!Array.isArray(models)) return [];
  const ids = models.map((m: unknown) =>
    typeof m === 'string'
      ? m
      : typeof (m as { id?: unknown })?.id === 'string'
        ? (m as { id: string }).id
        : null,
  );
  return [...new Set(ids.filter((id): id is string => id !== null))];
}

/**
 * One provider entry checked by the one schema, as it would be saved: alone in a document with
 * the file's settings and the models it serves (priced 0, for the cross-checks only), enabled so
 * that a provider switched off can be tried before it is switched on. Issues name `provider.<field>`.
 */
export function checkProviderEntry(fileDocument: unknown, entry: Record<string, unknown>): ProviderCheck {
  const models = servedIds(entry.models).map((id) => ({
    id,
    owned_by: 'provider-test',
    created: 0,
    pricing: { input_per_million: 0, output_per_million: 0 },
  }));
  const checked = validateLive(fileDocument, {
    providers: [{ ...entry, enabled: true }],
    models,
    groups: {},
  });
  if (checked.ok) return { ok: true, config: checked.config, provider: checked.config.providers[0]! };
  const own = checked.issues.filter((i) => i.path.startsWith('providers[0]'));
  const shown = own.length > 0 ? own : checked.issues;
  return {
    ok: false,
    issues: shown.map((i) => ({ ...i, path: i.path.replace(/^providers\[0\]/, 'provider') })),
  };
}
