import { z } from 'zod';
import { COMPATIBLE_VENDORS, PROVIDER_TYPES } from '#libs/config';
import { text } from '../http/validate.js';
import { storeSecretSchema } from './config.schema.js';

/**
 * A provider's probe with settings not saved yet: its entry as in the document (checked by the
 * one schema in the service, so every error names its field), and a key typed in the form.
 */
export const providerTestSchema = z.strictObject({
  provider: z.record(z.string(), z.unknown()),
  key: storeSecretSchema.shape.value.optional(),
});

/**
 * The catalog's prices for a model of a provider that may not be saved yet: its type, profile,
 * URL and (`vertex`) location, where Claude costs more than at `global`.
 */
export const draftCatalogPricesSchema = z.strictObject({
  type: z.enum(PROVIDER_TYPES),
  vendor: z.enum(COMPATIBLE_VENDORS).optional(),
  base_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  /** As the config's `location` of a vertex provider (us-east5, europe-west1, global...). */
  location: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,40}$/)
    .optional(),
  model: text(200).min(1),
});
