/** Host header syntax: a DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export interface RequestOrigin {
  headers: Record<string, string | string[] | undefined>;
  /** `http` or `https` as seen on this connection. */
  protocol: string;
}

function first(value: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  return raw?.split(',')[0]?.trim() || undefined;
}

/**
 * The absolute base URL of the API for links handed to clients (download links).
 * GLEANER_PUBLIC_URL when configured (recommended behind a proxy). Otherwise the request's own view:
 * `X-Forwarded-Proto` (only `http`/`https`) and `X-Forwarded-Host`, else the connection's protocol and
 * the `Host` header, each validated as a plain host[:port] so no path, credentials or markup can be
 * injected. Whoever forges these headers only changes the link in the answer to their own request:
 * the signature does not depend on the host, and the link only works against this API.
 */
export function publicBaseUrl(publicUrl: string | undefined, origin: RequestOrigin, fallbackPort: number): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const forwardedProto = first(origin.headers['x-forwarded-proto'])?.toLowerCase();
  const protocol =
    forwardedProto === 'http' || forwardedProto === 'https' ? forwardedProto : origin.protocol === 'https' ? 'https' : 'http';
  const candidates = [first(origin.headers['x-forwarded-host']), first(origin.headers.host)];
  const host = candidates.find((candidate) => candidate !== undefined && HOST.test(candidate)) ?? `localhost:${fallbackPort}`;
  return `${protocol}://${host}`;
}
