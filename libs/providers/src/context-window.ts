/**
 * Whether an error answer refuses the request as too long for the model's context window, by
 * `says`, which reads the vendor's parsed error body. Every vendor answers it as a 400 (the
 * request's fault, never the provider's), with a code or words of its own.
 */
export function refusedAsTooLong(status: number, body: Buffer, says: (error: unknown) => boolean): boolean {
  if (status !== 400) return false;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return false; // not JSON (a proxy's page): nothing says why
  }
  return says(parsed);
}
