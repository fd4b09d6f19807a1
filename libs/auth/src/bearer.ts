/**
 * The token of an `Authorization: Bearer <token>` header value, or null. The scheme is
 * case-insensitive (RFC 7235 section 2.1), so `bearer` and `BEARER` are as good as `Bearer`; the
 * token is one run of non-space characters after one or more spaces. The edge and the console
 * both read it here, so a header one accepts the other accepts too.
 */
export function bearerToken(authorization: string): string | null {
  return /^bearer +(\S+)$/i.exec(authorization)?.[1] ?? null;
}
