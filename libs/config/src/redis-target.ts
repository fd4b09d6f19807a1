/**
 * Where the gateway's Redis is. One server (a primary, or a managed endpoint in front of a
 * primary and its replicas): `url` is its URL. A Redis Cluster (`cluster`): `url` lists one or
 * more seed nodes, comma-separated; the client learns the other nodes and the slot map from them.
 */
export interface RedisTarget {
  readonly url: string;
  readonly cluster: boolean;
}

/** A Cluster's seed nodes and the credentials every node shares. */
export interface RedisClusterSeeds {
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly tls: boolean;
}

function redisUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`REDIS_URL: "${raw.replace(/\/\/[^@/]*@/, '//***@')}" is not a URL`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new Error(`REDIS_URL: ${url.protocol}// is not redis:// or rediss://`);
  return url;
}

/**
 * The seeds of a cluster `url`. Credentials and TLS are those of the first seed that names them:
 * a Cluster has one password for all its nodes, so the others may leave it out.
 */
export function clusterSeeds(url: string): RedisClusterSeeds {
  const urls = url
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(redisUrl);
  if (urls.length === 0) throw new Error('REDIS_URL names no Redis Cluster node');
  const withAuth = urls.find((u) => u.username !== '' || u.password !== '');
  const tls = urls[0]!.protocol === 'rediss:';
  if (urls.some((u) => (u.protocol === 'rediss:') !== tls))
    throw new Error('REDIS_URL: cluster seeds mix redis:// and rediss://');
  if (urls.some((u) => u.pathname !== '' && u.pathname !== '/' && u.pathname !== '/0'))
    throw new Error('REDIS_URL: a Redis Cluster has only database 0');
  return {
    nodes: urls.map((u) => ({
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port === '' ? 6379 : Number(u.port),
    })),
    username: withAuth?.username ? decodeURIComponent(withAuth.username) : undefined,
    password: withAuth?.password ? decodeURIComponent(withAuth.password) : undefined,
    tls,
  };
}

/** Validates `REDIS_URL` / `REDIS_CLUSTER` at boot, so a bad value stops the app before it serves. */
export function redisTarget(url: string, cluster: string | undefined): RedisTarget {
  const flag = (cluster ?? '').trim().toLowerCase();
  if (!['', '0', 'false', 'no', '1', 'true', 'yes'].includes(flag))
    throw new Error(`REDIS_CLUSTER must be true or false, got "${cluster}"`);
  const isCluster = ['1', 'true', 'yes'].includes(flag);
  if (isCluster) clusterSeeds(url);
  else if (url.includes(','))
    throw new Error('REDIS_URL lists several servers: set REDIS_CLUSTER=true for a Redis Cluster');
  else redisUrl(url);
  return Object.freeze({ url, cluster: isCluster });
}
