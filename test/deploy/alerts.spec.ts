import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { ERROR_CATALOGUE } from '#libs/protocol';
import { exportedPrometheusNames } from '#libs/telemetry';
import {
  alerts,
  KUBE_STATE_METRICS,
  metricNamesOf,
  RULE_TESTS_FILE,
  RULES_FILE,
  ruleMetricNames,
} from './alert-rules.js';
import { readRepoFile, readYaml, repoPath, repoRoot } from './repo.js';

/**
 * promtool, from Debian's `prometheus` package (.ci/run installs it as it installs Chromium). A
 * missing promtool fails: a rules file nobody checked must not pass CI.
 */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: repoRoot, encoding: 'utf8', timeout: 60_000 });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? 'promtool is not installed: apt-get install -y prometheus (.ci/run does it in CI)'
        : `promtool ${args.join(' ')}: ${run.error.message}`,
    );
  }
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface AlertTest {
  readonly alertname: string;
  readonly exp_alerts?: readonly unknown[];
}
interface RuleTests {
  readonly rule_files: readonly string[];
  readonly tests: ReadonlyArray<{ readonly alert_rule_test?: readonly AlertTest[] }>;
}

describe(RULES_FILE, () => {
  it('passes promtool check rules', () => {
    const { status, output } = promtool('check', 'rules', RULES_FILE);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it("is what compose's Prometheus loads: promtool check config passes on its config and the rules", () => {
    const { status, output } = promtool('check', 'config', 'deploy/prometheus/prometheus.yml');
    expect({ status, output }).toEqual({
      status: 0,
      output: expect.stringMatching(/alerts.yml\s+SUCCESS: \d+ rules found/),
    });
  });

  it("passes promtool's unit tests (alerts.test.yml)", () => {
    const { status, output } = promtool('test', 'rules', RULE_TESTS_FILE);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  }, 60_000);

  it('has, for every alert, a unit test where it fires and one where it must not', () => {
    const tests = readYaml(RULE_TESTS_FILE) as RuleTests;
    expect(tests.rule_files).toEqual(['alerts.yml']);
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    const missing = alerts().flatMap(({ alert }) => {
      const own = cases.filter((c) => c.alertname === alert);
      return [
        ...(own.some((c) => (c.exp_alerts ?? []).length > 0) ? [] : [`${alert}: no case that fires it`]),
        ...(own.some((c) => (c.exp_alerts ?? []).length === 0)
          ? []
          : [`${alert}: no case where it must not fire`]),
      ];
    });
    expect(missing).toEqual([]);
  });

  it('gives every alert a severity, a summary and a runbook_url to a section that exists', () => {
    const problems = alerts().flatMap(({ alert, labels, annotations }) => {
      const url = annotations?.runbook_url ?? '';
      const [file, anchor] = url.split('#');
      const section = new RegExp(`^## ${alert}$`, 'm');
      return [
        ...(['critical', 'warning'].includes(labels?.severity ?? '') ? [] : [`${alert}: severity`]),
        ...(annotations?.summary ? [] : [`${alert}: summary`]),
        ...(anchor === alert!.toLowerCase() && file?.startsWith('docs/runbooks/')
          ? []
          : [`${alert}: ${url}`]),
        ...(file && existsSync(repoPath(file)) && section.test(readRepoFile(file))
          ? []
          : [`${alert}: no "## ${alert}" in ${file}`]),
      ];
    });
    expect(problems).toEqual([]);
    expect(alerts().length).toBeGreaterThanOrEqual(15);
  });

  it('reads only metrics the apps export, or for k8s-only alerts kube-state-metrics', () => {
    const exported = exportedPrometheusNames();
    const used = ruleMetricNames();
    const unknown = used.filter(({ name }) => !exported.has(name) && !KUBE_STATE_METRICS.has(name));
    expect(unknown).toEqual([]);
    // The check sees names at all (a parser that found none would pass anything).
    expect(used.map((u) => u.name)).toContain('gen_ai_server_request_duration_count');
    expect(metricNamesOf('rate(a_total[5m] offset 15m)')).toEqual(['a_total']);
  });

  it('matches error.type values the edge really records', () => {
    // What the edge writes as error.type: the catalogue's codes and its pipeline's own outcomes.
    const codes = [
      ...Object.keys(ERROR_CATALOGUE),
      'upstream_request_error',
      'upstream_stream_error',
      'client_disconnected',
    ];
    const problems = alerts().flatMap(({ alert, expr }) =>
      [...expr.matchAll(/error_type\s*(=~|!~|=|!=)\s*"([^"]*)"/g)].flatMap(([, , pattern]) =>
        pattern!
          .split('|')
          .filter((alt) => !codes.some((code) => new RegExp(`^(?:${alt})$`).test(code)))
          .map((alt) => `${alert}: error_type ${alt} matches no code`),
      ),
    );
    expect(problems).toEqual([]);
  });
});
