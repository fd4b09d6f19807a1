// Writes k8s/components/prometheus-rules/prometheus-rule.yaml from deploy/prometheus/alerts.yml:
// the same groups, wrapped in a PrometheusRule (monitoring.coreos.com/v1). Run after changing the
// rules, then format it:
//   node deploy/prometheus/prometheus-rule.mjs && npx prettier --write k8s/components/prometheus-rules
// test/deploy/k8s.spec.ts fails while the two differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { URL } from 'node:url';
import { parse, stringify } from 'yaml';

const root = new URL('../../', import.meta.url);
const { groups } = parse(readFileSync(new URL('deploy/prometheus/alerts.yml', root), 'utf8'));
const rule = {
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: {
    name: 'model-gateway-alerts',
    labels: { 'app.kubernetes.io/part-of': 'model-gateway', role: 'alert-rules' },
  },
  spec: { groups },
};
const header = [
  '# Generated from deploy/prometheus/alerts.yml by deploy/prometheus/prometheus-rule.mjs: edit the',
  '# rules there, then regenerate (test/deploy/k8s.spec.ts fails while the two differ).',
  '',
].join('\n');
writeFileSync(
  new URL('k8s/components/prometheus-rules/prometheus-rule.yaml', root),
  header + stringify(rule, { lineWidth: 0 }),
);
