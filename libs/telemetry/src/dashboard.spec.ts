import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import {
  exportedPrometheusNames,
  INSTRUMENTS,
  type InstrumentSpec,
  prometheusSeries,
} from './instruments.js';
import { promqlMetricNames } from './promql.js';

interface Target {
  readonly expr: string;
}
interface Panel {
  readonly id: number;
  readonly type: string;
  readonly title: string;
  readonly targets?: Target[];
  readonly datasource?: { readonly uid: string };
}

const dashboard = JSON.parse(
  readFileSync(new URL('../../../deploy/grafana/gateway-dashboard.json', import.meta.url), 'utf8'),
) as {
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; query: unknown; definition?: string }> };
};

const queries: Array<{ where: string; expr: string }> = [
  ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr }))),
  ...dashboard.templating.list
    .filter((v) => v.definition !== undefined)
    .map((v) => ({ where: `variable ${v.name}`, expr: v.definition! })),
];

describe('promqlMetricNames', () => {
  it('finds the metrics and leaves functions, labels, ranges and variables out', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, gen_ai_request_model) (rate(a_bucket{x=~"$model", y!="b c"}[$__rate_interval]))) / on (job) group_left max(b_total)',
      ),
    ).toEqual(['a_bucket', 'b_total']);
    expect(promqlMetricNames('label_values(c_count, gen_ai_request_model)')).toEqual(['c_count']);
  });
});

describe('deploy/grafana/gateway-dashboard.json', () => {
  it('is a dashboard with unique panel ids, each query panel on the datasource variable', () => {
    expect(dashboard.uid).toBe('model-gateway');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(p.datasource?.uid).toBe('${datasource}');
      expect(p.targets?.length).toBeGreaterThan(0);
    }
  });

  it('reads only metrics the apps export (names from the instruments table)', () => {
    const exported = exportedPrometheusNames();
    const unknown = queries.flatMap(({ where, expr }) =>
      promqlMetricNames(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
    expect(queries.length).toBeGreaterThan(20);
  });

  it('shows every instrument somewhere', () => {
    const used = new Set(queries.flatMap(({ expr }) => promqlMetricNames(expr)));
    const unused = (Object.values(INSTRUMENTS) as InstrumentSpec[])
      .filter((spec) => !prometheusSeries(spec).some((series) => used.has(series)))
      .map((spec) => spec.name);
    expect(unused).toEqual([]);
  });
});
