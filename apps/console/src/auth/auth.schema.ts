import { z } from 'zod';
import { text } from '../http/validate.js';

/** RFC 5321 caps an address at 254 characters; the shape check is deliberately loose. */
export const emailSchema = text(254)
  .trim()
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address')
  .transform((e) => e.toLowerCase());

/** New passwords: long enough to resist guessing, short enough that hashing stays cheap. */
export const newPasswordSchema = z.string().min(12, 'must be at least 12 characters').max(200);

export const signInSchema = z.strictObject({
  email: emailSchema,
  // Any stored password fits in 200 characters; longer input cannot match and is refused unhashed.
  password: z.string().min(1).max(200),
});

export const setupSchema = z.strictObject({
  token: z.string().min(1).max(200),
  email: emailSchema,
  password: newPasswordSchema,
});
