import { promqlMetricNames } from '#libs/telemetry';
import { readYaml } from './repo.js';

export const RULES_FILE = 'deploy/prometheus/alerts.yml';
export const RULE_TESTS_FILE = 'deploy/prometheus/alerts.test.yml';

export interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string;
  readonly for?: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}
export interface RuleGroup {
  readonly name: string;
  readonly rules: readonly Rule[];
}

export const ruleGroups = (): RuleGroup[] => (readYaml(RULES_FILE) as { groups: RuleGroup[] }).groups;
export const allRules = (): Rule[] => ruleGroups().flatMap((g) => g.rules);
export const alerts = (): Rule[] => allRules().filter((r) => r.alert !== undefined);

/**
 * Series that k8s-only alerts read from kube-state-metrics (not from the apps): the only names
 * allowed besides the apps' own and the rules' recorded ones. Each is a kube-state-metrics v2
 * series (https://github.com/kubernetes/kube-state-metrics/blob/main/docs/metrics/workload/pod-metrics.md).
 */
export const KUBE_STATE_METRICS = new Set([
  'kube_pod_container_status_restarts_total',
  'kube_pod_container_status_last_terminated_reason',
]);

/** The metric names an expression reads (`offset 15m` is not a metric `m`). */
export function metricNamesOf(expr: string): string[] {
  return promqlMetricNames(expr.replace(/\boffset\s+\d+[smhdwy]/g, ' '));
}

/** Every (rule, metric name) its expression reads that is not one of the rules' own records. */
export function ruleMetricNames(): Array<{ rule: string; name: string }> {
  const recorded = new Set(allRules().flatMap((r) => (r.record ? [r.record] : [])));
  return allRules().flatMap((r) =>
    metricNamesOf(r.expr)
      .filter((name) => !recorded.has(name))
      .map((name) => ({ rule: r.alert ?? r.record!, name })),
  );
}
