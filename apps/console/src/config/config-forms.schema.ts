import { z } from 'zod';
import { providerDescriptors } from '#libs/providers';
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
 * The catalog's prices for a model of a provider that may not be saved yet: its type, URL and the
 * type's own settings the catalog's lookup reads (a profile, a location where a cloud bills more).
 */
export const draftCatalogPricesSchema = z
  .strictObject({
    type: z.string().refine((type) => providerDescriptors().some((d) => d.type === type), {
      error: () =>
        `must be one of ${providerDescriptors()
          .map((d) => d.type)
          .join(', ')}`,
    }),
    base_url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    model: text(200).min(1),
  })
  .catchall(text(200));
