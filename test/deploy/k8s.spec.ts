import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import { parseConfig } from '#libs/gateway-config';
import { readYaml, repoPath, sourceExists, sourceOfDistPath } from './repo.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are untyped YAML; the
   Kubernetes schemas (kubernetes-models) are what types them, and they run first in every check. */
type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; [k: string]: any };
  [k: string]: any;
};

const OVERLAYS = [
  'k8s/base',
  'k8s/overlays/dev',
  'k8s/overlays/production',
  'k8s/overlays/production-shared-spool',
  'k8s/overlays/production-azure',
] as const;
const APPS = { edge: 8080, console: 8081, router: 8082, worker: 8083 } as const;
/** The Prometheus Operator objects of k8s/components/prometheus-rules (production overlays). */
const OPERATOR_API = 'monitoring.coreos.com/v1';
const OPERATOR_KINDS = ['PrometheusRule', 'PodMonitor'];
const PRODUCTION = OVERLAYS.filter((dir) => dir.startsWith('k8s/overlays/production'));

/** `kubectl kustomize` output (works offline), one object per YAML document. */
function render(dir: string): K8sObject[] {
  const out = execFileSync('kubectl', ['kustomize', repoPath(dir)], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
}

/** The kubernetes-models class for an object, e.g. apps/v1 Deployment. */
async function modelOf(obj: K8sObject): Promise<(new (data: unknown) => { validate(): void }) | undefined> {
  const module = (await import(`kubernetes-models/${obj.apiVersion}`)) as Record<string, unknown>;
  return module[obj.kind] as (new (data: unknown) => { validate(): void }) | undefined;
}

/**
 * kustomize wraps long base64 Secret values over lines; the API server's decoder (Go's base64)
 * skips line breaks, the schema's `byte` format does not, so they are joined before validating.
 */
function asApiServerReads(obj: K8sObject): K8sObject {
  if (obj.kind !== 'Secret' || !obj.data) return obj;
  const data = Object.fromEntries(
    Object.entries(obj.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, '')]),
  );
  return { ...obj, data };
}

const rendered = new Map<string, K8sObject[]>();
beforeAll(() => {
  for (const dir of OVERLAYS) rendered.set(dir, render(dir));
});

const find = (dir: string, kind: string, name: string): K8sObject | undefined =>
  rendered
    .get(dir)!
    .find((o) => o.kind === kind && (o.metadata.name === name || o.metadata.name.startsWith(`${name}-`)));
const workloads = (dir: string): K8sObject[] =>
  rendered.get(dir)!.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));

describe.each(OVERLAYS)('%s', (dir) => {
  it('renders, and every object is valid against the Kubernetes schemas', async () => {
    const objects = rendered.get(dir)!;
    expect(objects.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const obj of objects) {
      if (obj.apiVersion === OPERATOR_API) {
        // kubernetes-models has no Prometheus Operator schemas: the alerting tests below check these.
        if (!OPERATOR_KINDS.includes(obj.kind)) problems.push(`${obj.apiVersion} ${obj.kind} has no schema`);
        continue;
      }
      const Model = await modelOf(obj);
      if (!Model) {
        problems.push(`${obj.apiVersion} ${obj.kind} has no schema`);
        continue;
      }
      try {
        new Model(asApiServerReads(obj)).validate();
      } catch (err) {
        problems.push(`${obj.kind}/${obj.metadata.name}: ${(err as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('runs every pod non-root, read-only, without capabilities, under RuntimeDefault seccomp, with requests and limits', () => {
    for (const w of workloads(dir)) {
      const pod = w.spec.template.spec;
      expect({ name: w.metadata.name, pod: pod.securityContext }).toMatchObject({
        name: w.metadata.name,
        pod: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      });
      for (const c of pod.containers) {
        expect({ name: c.name, securityContext: c.securityContext }).toEqual({
          name: c.name,
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
        });
        expect({ name: c.name, resources: c.resources }).toEqual({
          name: c.name,
          resources: {
            requests: { cpu: expect.anything(), memory: expect.anything() },
            limits: { cpu: expect.anything(), memory: expect.anything() },
          },
        });
      }
    }
  });

  it.each(Object.entries(APPS))(
    '%s: a Deployment with probes on its port, a Service and a PDB',
    (app, port) => {
      const deployment = find(dir, 'Deployment', app)!;
      const container = deployment.spec.template.spec.containers[0];
      expect(container.command).toEqual(['node', `dist/apps/${app}/src/main.js`]);
      expect(sourceExists(container.command[1])).toBe(true);
      expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
        expect({ probe, path: container[probe]?.httpGet?.path }).toEqual({
          probe,
          path: expect.stringMatching(/^\/(healthz|readyz)$/),
        });
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
      const service = find(dir, 'Service', app)!;
      expect(service.spec.ports).toEqual([{ name: 'http', port, targetPort: 'http' }]);
      expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
      expect(find(dir, 'PodDisruptionBudget', app)?.spec.selector).toEqual(deployment.spec.selector);
    },
  );

  it('gives in-flight edge streams their whole drain before the kill: grace >= preStop + drain + final flush', () => {
    const edge = find(dir, 'Deployment', 'edge')!.spec.template.spec;
    const config = gatewayConfig(dir);
    const preStop = Number(edge.containers[0].lifecycle.preStop.exec.command.at(-1));
    const needed =
      preStop * 1000 +
      config.edge.shutdown_delay_ms +
      config.edge.shutdown_timeout_ms +
      2 * config.edge.log_flush_timeout_ms;
    expect(edge.terminationGracePeriodSeconds * 1000).toBeGreaterThan(needed);
    expect(edge.containers[0].readinessProbe.httpGet.path).toBe('/readyz');
    // The spool lives on a writable volume at the configured directory.
    const mounts = edge.containers[0].volumeMounts.map((m: any) => m.mountPath);
    expect(mounts).toContain(config.edge.log_spool_dir);
  });

  it('routes /v1 and /v1beta (the Gemini API) to the edge and / to the console', () => {
    const rules = find(dir, 'Ingress', 'gateway')!.spec.rules;
    const paths = rules.flatMap((r: any) =>
      r.http.paths.map((p: any) => [p.path, p.pathType, p.backend.service.name, p.backend.service.port.name]),
    );
    expect(paths).toEqual([
      ['/v1', 'Prefix', 'edge', 'http'],
      ['/v1beta', 'Prefix', 'edge', 'http'],
      ['/', 'Prefix', 'console', 'http'],
    ]);
  });

  it('autoscales the edge on CPU', () => {
    const hpa = find(dir, 'HorizontalPodAutoscaler', 'edge')!;
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'edge' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(1);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it('runs one edge process per CPU of the limit, with memory for each', () => {
    const container = find(dir, 'Deployment', 'edge')!.spec.template.spec.containers[0];
    expect(container.env).toContainEqual({
      name: 'EDGE_PROCESSES',
      valueFrom: {
        resourceFieldRef: { containerName: container.name, resource: 'limits.cpu', divisor: '1' },
      },
    });
    // The downward API rounds limits.cpu up: that many processes, each with its own heap.
    const cpu = String(container.resources.limits.cpu);
    const processes = Math.ceil(cpu.endsWith('m') ? Number(cpu.slice(0, -1)) / 1000 : Number(cpu));
    const memoryMi = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)?.[1] ?? 'NaN');
    expect(memoryMi).toBeGreaterThanOrEqual(processes * 600);
    // Requested as much CPU as the processes it starts: a pod scheduled on less would time-share
    // its processes (the HPA's utilisation is of the request, so it also scales on the real use).
    expect(container.resources.requests.cpu).toEqual(container.resources.limits.cpu);
  });

  it('lets through the ingress every body the edge accepts (agent sessions reach tens of MB)', () => {
    const ingress = find(dir, 'Ingress', 'gateway')!;
    const size = String(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size']);
    const units: Record<string, number> = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
    const match = /^(\d+)([kmg])$/i.exec(size);
    expect(match).not.toBeNull();
    const ingressBytes = Number(match![1]) * units[match![2]!.toLowerCase()]!;
    const edgeBytes = gatewayConfig(dir).edge.body_limit_bytes;
    expect(edgeBytes).toBe(32 * 1024 * 1024);
    expect(ingressBytes).toBeGreaterThanOrEqual(edgeBytes);
  });

  it('mounts a gateway config that passes the config schema', () => {
    const config = gatewayConfig(dir);
    expect(config.console.router_url).toBe('http://router:8082');
    for (const app of Object.keys(APPS)) {
      const pod = find(dir, 'Deployment', app)!.spec.template.spec;
      const configMap = pod.volumes.find((v: any) => v.name === 'config').configMap.name;
      expect(configMap).toBe(find(dir, 'ConfigMap', 'gateway-config')!.metadata.name);
      expect(pod.containers[0].env).toContainEqual({
        name: 'GATEWAY_CONFIG',
        value: '/etc/gateway/gateway.yaml',
      });
    }
  });

  it('runs the migrations as a Job before anything needs them', () => {
    const job = find(dir, 'Job', 'gateway-migrate')!;
    const command = job.spec.template.spec.containers[0].command;
    expect(command).toEqual(['node', 'dist/libs/db/src/migrate.main.js']);
    expect(sourceOfDistPath(command[1])).toBe('libs/db/src/migrate.main.ts');
    expect(sourceExists(command[1])).toBe(true);
  });

  it('runs Redis with AOF (fsync every second) and noeviction', () => {
    const conf: string = find(dir, 'ConfigMap', 'redis-config')!.data['redis.conf'];
    expect(conf).toMatch(/^appendonly yes$/m);
    expect(conf).toMatch(/^appendfsync everysec$/m);
    expect(conf).toMatch(/^maxmemory-policy noeviction$/m);
    expect(find(dir, 'StatefulSet', 'redis')!.spec.volumeClaimTemplates).toHaveLength(1);
  });

  it('denies ingress by default and lets only gateway pods reach Redis', () => {
    const policies = rendered.get(dir)!.filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => p.metadata.name === 'default-deny-ingress')!;
    expect(deny.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
    const redis = policies.find((p) => p.metadata.name === 'redis-from-gateway')!;
    const clientLabel = redis.spec.ingress[0].from[0].podSelector.matchLabels;
    for (const app of Object.keys(APPS))
      expect(find(dir, 'Deployment', app)!.spec.template.metadata.labels).toMatchObject(clientLabel);
  });

  it('references secrets by name only; every name is generated here or documented as created outside git', () => {
    const external = new Set(['gateway-secrets', 'gateway-provider-keys']);
    const generated = new Set(
      rendered
        .get(dir)!
        .filter((o) => o.kind === 'Secret')
        .map((o) => o.metadata.name),
    );
    const refs = workloads(dir).flatMap((w) =>
      w.spec.template.spec.containers.flatMap((c: any) =>
        (c.env ?? []).filter((e: any) => e.valueFrom?.secretKeyRef).map((e: any) => e.valueFrom.secretKeyRef),
      ),
    );
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const known = generated.has(ref.name) || (external.has(ref.name) && !generated.has(`${ref.name}`));
      expect({ ref: ref.name, known }).toEqual({ ref: ref.name, known: true });
    }
    // Secrets, and the provider keys at all, are never inline env values.
    for (const w of workloads(dir))
      for (const c of w.spec.template.spec.containers)
        for (const e of c.env ?? [])
          if (/KEY|SECRET|PASSWORD|DATABASE_URL|REDIS_URL/.test(e.name))
            expect({ env: e.name, inline: e.value !== undefined }).toEqual({ env: e.name, inline: false });
  });
});

describe('overlays', () => {
  it('production commits no secret values, and pins a versioned image', () => {
    const objects = rendered.get('k8s/overlays/production')!;
    expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    const images = workloads('k8s/overlays/production').flatMap((w) =>
      w.spec.template.spec.containers.map((c: any) => c.image as string),
    );
    for (const image of images) expect(image).toMatch(/:[\w.-]+$/);
    expect(images.filter((i) => i.endsWith(':latest'))).toEqual([]);
  });

  it('production-shared-spool puts every edge spool on one ReadWriteMany claim in the namespace', () => {
    const dir = 'k8s/overlays/production-shared-spool';
    const claim = find(dir, 'PersistentVolumeClaim', 'edge-spool')!;
    expect(claim.spec.accessModes).toEqual(['ReadWriteMany']);
    expect(claim.metadata.namespace).toBe('model-gateway');
    const spool = find(dir, 'Deployment', 'edge')!.spec.template.spec.volumes.find(
      (v: any) => v.name === 'spool',
    );
    expect(spool).toEqual({ name: 'spool', persistentVolumeClaim: { claimName: 'edge-spool' } });
  });

  it('production-azure serves Azure OpenAI keyless: the edge and router under a workload identity service account', () => {
    const dir = 'k8s/overlays/production-azure';
    const account = find(dir, 'ServiceAccount', 'gateway-azure')!;
    expect(account.metadata.namespace).toBe('model-gateway');
    expect(account.metadata.annotations['azure.workload.identity/client-id']).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    // The apps that call providers: the edge serves requests, the router probes.
    for (const app of ['edge', 'router']) {
      const template = find(dir, 'Deployment', app)!.spec.template;
      expect([app, template.metadata.labels['azure.workload.identity/use']]).toEqual([app, 'true']);
      expect([app, template.spec.serviceAccountName]).toEqual([app, 'gateway-azure']);
      // The webhook projects its own token volume; the API token stays unmounted.
      expect([app, template.spec.automountServiceAccountToken]).toEqual([app, false]);
    }
    for (const app of ['worker', 'console']) {
      const template = find(dir, 'Deployment', app)!.spec.template;
      expect([app, template.metadata.labels['azure.workload.identity/use']]).toEqual([app, undefined]);
      expect([app, template.spec.serviceAccountName]).toEqual([app, undefined]);
    }
    const azure = gatewayConfig(dir).providers.filter((p) => p.type === 'azure-openai');
    expect(azure.map((p) => (p as Record<string, unknown>).deployments === undefined)).toEqual([false, true]);
    for (const p of azure) expect([p.id, p.api_key_env]).toEqual([p.id, undefined]);
    // No Azure secret anywhere: the webhook sets the client and tenant ids and the token file.
    const env = workloads(dir).flatMap((w) =>
      w.spec.template.spec.containers.flatMap((c: any) => (c.env ?? []).map((e: any) => e.name as string)),
    );
    expect(env.filter((name) => name.startsWith('AZURE_'))).toEqual([]);
  });

  it('dev generates only obviously-dev credentials and runs its own Postgres and mock provider', () => {
    const secret = find('k8s/overlays/dev', 'Secret', 'gateway-secrets')!;
    const decoded = Object.values(secret.data as Record<string, string>).map((v) =>
      Buffer.from(v, 'base64').toString(),
    );
    expect(decoded.join(' ')).toContain('dev-only');
    expect(find('k8s/overlays/dev', 'StatefulSet', 'postgres')).toBeDefined();
    expect(find('k8s/overlays/dev', 'Deployment', 'mock-provider')).toBeDefined();
    const config = gatewayConfig('k8s/overlays/dev');
    expect(config.providers.filter((p) => p.base_url.startsWith('http://mock-provider:4010')).length).toBe(2);
  });

  it('the base config serves the real vendors of config/gateway.yaml, with the same models and prices', () => {
    const local = readYaml('config/gateway.yaml') as {
      providers: { id: string; api_key_env?: string }[];
      models: unknown[];
    };
    const base = gatewayConfig('k8s/base');
    const vendors = local.providers.filter((p) => p.api_key_env).map((p) => p.id);
    expect(base.providers.map((p) => p.id)).toEqual(vendors);
    const localModels = parseConfig(local).models;
    for (const model of base.models) expect(localModels).toContainEqual(model);
  });
});

describe('alerting (k8s/components/prometheus-rules)', () => {
  it.each(PRODUCTION)(
    '%s: a PrometheusRule holding exactly the rules of deploy/prometheus/alerts.yml',
    (dir) => {
      const rule = find(dir, 'PrometheusRule', 'model-gateway-alerts');
      const { groups } = readYaml('deploy/prometheus/alerts.yml') as { groups: unknown[] };
      // Regenerate on a difference: node deploy/prometheus/prometheus-rule.mjs
      expect(rule?.spec).toEqual({ groups });
      expect(rule?.metadata.namespace).toBe('model-gateway');
    },
  );

  it.each(PRODUCTION)(
    "%s: a PodMonitor scraping every app's /metrics on its http port, job = the app",
    (dir) => {
      const monitor = find(dir, 'PodMonitor', 'model-gateway')!;
      expect(monitor.spec.jobLabel).toBe('app.kubernetes.io/name');
      const [endpoint, ...others] = monitor.spec.podMetricsEndpoints as Array<{ port: string; path: string }>;
      expect(others).toEqual([]);
      expect(endpoint).toMatchObject({ port: 'http', path: '/metrics' });
      const { matchLabels, matchExpressions } = monitor.spec.selector as {
        matchLabels: Record<string, string>;
        matchExpressions: Array<{ key: string; operator: string; values: string[] }>;
      };
      for (const app of Object.keys(APPS)) {
        const pod = find(dir, 'Deployment', app)!.spec.template;
        expect(pod.metadata.labels).toMatchObject(matchLabels);
        for (const e of matchExpressions) expect(e.values).toContain(pod.metadata.labels[e.key]);
        expect(pod.spec.containers[0].ports.map((p: { name: string }) => p.name)).toContain(endpoint!.port);
      }
    },
  );

  it('is left out of the dev overlay (a dev cluster may lack the Prometheus Operator CRDs)', () => {
    expect(rendered.get('k8s/overlays/dev')!.filter((o) => o.apiVersion === OPERATOR_API)).toEqual([]);
  });
});

function gatewayConfig(dir: string) {
  const map = find(dir, 'ConfigMap', 'gateway-config')!;
  const [doc] = parseAllDocuments(map.data['gateway.yaml'] as string);
  return parseConfig(doc!.toJS());
}
