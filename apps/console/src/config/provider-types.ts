import { z } from 'zod';
import { providerDescriptors, type ProviderDescriptor } from '#libs/providers';

/** The JSON Schema of a type's own settings: properties (type, enum, title, description) and `required`. */
export type SettingsSchema = Readonly<Record<string, unknown>>;

/** How an entry without a key authenticates, as the console words it: `short` in lists, `long` on the form. */
export interface AmbientLabels {
  readonly short: string;
  readonly long: string;
}

/**
 * One provider type as the console's provider form renders it, from its descriptor: the form
 * holds no list of types and no rule of its own, so a new type's folder is all it takes to edit one.
 */
export interface ProviderTypeView {
  readonly type: string;
  readonly label: string;
  /** The settings an entry of this type takes besides the common ones (id, base_url, models...). */
  readonly settings: SettingsSchema;
  /** False when the type derives `base_url` from its settings (then it is an optional override). */
  readonly baseUrlRequired: boolean;
  /** False when the type probes with an API call of its own (`probe_path` refused). */
  readonly probePath: boolean;
  /** Whether entries may name a key; when not, the refusal the configuration's check gives. */
  readonly keys: { readonly allowed: true } | { readonly allowed: false; readonly refusal: string };
  /** The platform credential an entry without a key uses, or null (such an entry sends none). */
  readonly ambient: AmbientLabels | null;
  /** Whether entries are translated by a profile the type's settings choose. */
  readonly profile: boolean;
}

/** The zod fields as JSON Schema, as a request's body would be written (`.meta` titles kept). */
export function settingsSchema(settings: z.ZodRawShape): SettingsSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(z.object(settings), {
    io: 'input',
    unrepresentable: 'any',
  });
  return schema;
}

export function providerTypeView(d: ProviderDescriptor): ProviderTypeView {
  return {
    type: d.type,
    label: d.label,
    settings: settingsSchema(d.settings),
    baseUrlRequired: d.baseUrl === 'required',
    probePath: d.probe === 'path',
    keys: d.keys === true ? { allowed: true } : { allowed: false, refusal: d.keys.refusal },
    ambient: d.ambient ? { short: d.ambient.label.short, long: d.ambient.label.long } : null,
    profile: d.profile !== undefined,
  };
}

/** Every provider type the configuration admits, in the registry's order (the form's select). */
export function providerTypeViews(
  descriptors: readonly ProviderDescriptor[] = providerDescriptors(),
): ProviderTypeView[] {
  return descriptors.map(providerTypeView);
}
