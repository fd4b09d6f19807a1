/** PromQL words that are not metric names: functions, aggregations, keywords. */
const NOT_METRICS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'group',
  'count_values',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'histogram_quantile',
  'label_values',
  'label_replace',
  'abs',
  'clamp_min',
  'clamp_max',
  'vector',
  'scalar',
  'time',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression (or a Grafana query like `label_values(...)`) reads:
 * strings, label matchers, ranges and grouping clauses removed, then every identifier that is
 * not a function or keyword. Enough for dashboards' expressions; not a PromQL parser.
 */
export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // label_values(metric, label): the label is not a metric.
    .replace(/label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)/g, ' $1 ')
    .replace(/\$\w+/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = m[0];
    const next = stripped.slice(m.index + word.length).trimStart();
    if (NOT_METRICS.has(word.toLowerCase()) || next.startsWith('(')) continue;
    names.add(word);
  }
  return [...names];
}
