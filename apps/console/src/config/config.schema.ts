import { z } from 'zod';

/** A change: the whole live document (providers, models, groups), made on a version. */
export const saveConfigSchema = z.strictObject({
  base_version: z.int().nonnegative(),
  document: z.record(z.string(), z.unknown()),
  comment: z
    .string()
    .max(500)
    .regex(/^[^\0]*$/, 'must not contain NUL characters')
    .optional(),
  /** Save although a group would be left with no model that can be served (the answer says which). */
  acknowledge_warnings: z.boolean().default(false),
});

export const validateConfigSchema = z.strictObject({ document: z.record(z.string(), z.unknown()) });

/**
 * A provider key entered in the console: stored sealed, bound to the provider it is entered for
 * (its id and the settings that make its address: base_url, or Bedrock's region and
 * control_plane_url), answered with its id and hint only.
 */
export const storeSecretSchema = z.strictObject({
  provider: z.record(z.string(), z.unknown()),
  value: z
    .string()
    .min(8)
    .max(4096)
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces, as vendor keys are'),
});

export const importConfigSchema = z.strictObject({
  base_version: z.int().nonnegative(),
  yaml: z.string().min(1).max(1_000_000),
  comment: z
    .string()
    .max(500)
    .regex(/^[^\0]*$/, 'must not contain NUL characters')
    .optional(),
});
