/**
 * Where the edge's CPU goes, from a V8 .cpuprofile: self time charged to components. Node core and
 * native frames (socket writes, streams, events, wasm) are charged to the nearest library or our
 * code up the stack, since that is who asked for the work; V8 builtins such as JSON.parse have no
 * frame of their own and already count as their caller's self time.
 */

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

export interface ProfileShare {
  readonly name: string;
  /** Share of the edge main thread's busy (non-idle) sampled time, in percent. */
  readonly pct: number;
}

export interface ProfileSummary {
  readonly sampledMs: number;
  readonly idlePct: number;
  readonly components: readonly ProfileShare[];
  /** Our code's self time by function (JSON.parse/stringify calls included in their caller). */
  readonly ourFunctions: readonly ProfileShare[];
  readonly topFunctions: readonly ProfileShare[];
  /** Time with a given function anywhere on the (synchronous) stack. */
  readonly paths: readonly ProfileShare[];
}

const PACKAGE_COMPONENTS: readonly [RegExp, string][] = [
  [/^(@nestjs\/.*|reflect-metadata|rxjs|tslib)$/, 'NestJS'],
  [
    /^(fastify|find-my-way|@fastify\/.*|avvio|light-my-request|fast-.*|toad-cache|secure-json-parse)$/,
    'Fastify',
  ],
  [/^undici$/, 'undici (upstream HTTP client)'],
  [/^(bullmq|msgpackr|cron-parser|uuid)$/, 'BullMQ (log enqueue)'],
  [
    /^(ioredis|@ioredis\/.*|redis-parser|redis-errors|denque|cluster-key-slot|standard-as-callback)$/,
    'ioredis',
  ],
];

/** Functions whose inclusive time the summary reports (name pattern, url pattern, label). */
const PATHS: readonly [RegExp, RegExp, string][] = [
  [/^hashApiKey$/, /dist\/libs\/auth\//, 'SHA-256 of the API key (hashApiKey)'],
  [/^GatewayError$/, /dist\/libs\/protocol\//, 'new GatewayError (stack trace capture)'],
  [/^addBulk$/, /bullmq/, 'BullMQ Queue.addBulk (synchronous part)'],
  [/^AbortController$|^createAbortSignal$/, /abort_controller/, 'new AbortController per upstream call'],
];

/** Native StreamBase writes: on loopback the kernel's whole TCP path runs inside them. */
const SOCKET_WRITES = new Set([
  'writev',
  'writeBuffer',
  'writeUtf8String',
  'writeLatin1String',
  'writeAsciiString',
]);
export const NO_LIBRARY = 'Node HTTP server, streams, event loop (no library on the stack)';

const isCore = (url: string): boolean => url === '' || url.startsWith('node:') || url.startsWith('wasm://');

/** The component a frame belongs to, or null for Node core/native frames (charged to the caller). */
export function componentOf(frame: ProfileNode['callFrame']): string | null {
  switch (frame.functionName) {
    case '(garbage collector)':
      return 'V8 garbage collector';
    case '(program)':
      return 'V8/native, not attributed (program)';
    case '(root)':
      return NO_LIBRARY;
  }
  if (isCore(frame.url)) return null;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(frame.url)?.[1];
  if (pkg) return PACKAGE_COMPONENTS.find(([re]) => re.test(pkg))?.[1] ?? `other packages (${pkg})`;
  if (frame.url.includes('/dist/')) return 'our code (apps/edge, libs)';
  return `other (${frame.url})`;
}

function addTo<K>(map: Map<K, number>, key: K, us: number): void {
  map.set(key, (map.get(key) ?? 0) + us);
}

/** From the package or dist/ folder on: ESM frames come as file:// URLs, CommonJS ones as plain paths. */
export const shortUrl = (url: string): string =>
  url.replace(/^(?:file:\/\/)?\/.*?\/(dist|node_modules)\//, '$1/');

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  // A sample's delta is the time until the next sample: charge it to that sample's node.
  profile.samples.forEach((id, i) => addTo(self, id, profile.timeDeltas[i + 1] ?? 0));

  const components = new Map<string, number>();
  const ours = new Map<string, number>();
  const functions = new Map<string, number>();
  const paths = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const node = byId.get(id)!;
    total += us;
    if (node.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    let owner: string | null = null;
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur)!.callFrame;
      owner ??= componentOf(frame);
      for (const [fn, url, label] of PATHS)
        if (fn.test(frame.functionName) && url.test(frame.url)) seen.add(label);
    }
    for (const label of seen) addTo(paths, label, us);
    const frame = node.callFrame;
    const component = owner ?? NO_LIBRARY;
    addTo(
      components,
      SOCKET_WRITES.has(frame.functionName) ? `socket write syscalls, for ${component}` : component,
      us,
    );
    const name = `${frame.functionName || '(anonymous)'}${frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;
    addTo(functions, name, us);
    if (componentOf(frame)?.startsWith('our code')) addTo(ours, name, us);
  }
  const busy = total - idle;
  const shares = (m: Map<string, number>, limit: number): ProfileShare[] =>
    [...m]
      .map(([name, us]) => ({ name, pct: (us / busy) * 100 }))
      .filter((s) => s.pct >= 0.1)
      .sort((a, b) => b.pct - a.pct)
      .slice(0, limit);
  return {
    sampledMs: total / 1000,
    idlePct: (idle / total) * 100,
    components: shares(components, 20),
    ourFunctions: shares(ours, 8),
    topFunctions: shares(functions, 15),
    paths: shares(paths, PATHS.length),
  };
}
