// A stacked bar chart drawn as SVG: one bar per day, one colour per series (model). No library;
// colours come from the stylesheet (.series-N) so the CSP needs no inline style.
import { h, s } from './dom.js';
import { formatDay } from './format.js';

const W = 760;
const H = 260;
const M = { top: 14, right: 12, bottom: 30, left: 64 };
export const SERIES_COLOURS = 8;

/** A "nice" step (1, 2 or 5 times a power of ten) so that about `count` steps span `max`. */
export function niceStep(max, count = 4) {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/**
 * `days`: ['YYYY-MM-DD'...]; `series`: [{name, values: number[] (one per day)}];
 * `format(n)`: axis and tooltip text; `title`: the accessible name.
 */
export function stackedBarChart({ days, series, format, title, unit, integer = false }) {
  const totals = days.map((_d, i) => series.reduce((sum, x) => sum + (x.values[i] ?? 0), 0));
  const max = Math.max(0, ...totals);
  // Counts (requests, tokens) never get fractional ticks.
  const step = integer ? Math.max(1, niceStep(max)) : niceStep(max);
  // Every tick with the decimals the step needs, so the axis reads 0.00000, 0.00001, 0.00002...
  const decimals = step >= 1 ? 0 : Math.ceil(-Math.log10(step) - 1e-9);
  const tick = (v) =>
    v.toLocaleString(undefined, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  const top = max > 0 ? Math.ceil(max / step) * step : 1;
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const y = (v) => M.top + plotH - (v / top) * plotH;
  const band = plotW / Math.max(days.length, 1);
  const barW = Math.min(36, band * 0.7);
  const labelEvery = Math.ceil(days.length / 10);

  const grid = [];
  for (let v = 0; v <= top + step / 2; v += step)
    grid.push(
      s('line', { class: 'grid', x1: M.left, x2: W - M.right, y1: y(v), y2: y(v) }),
      s('text', { class: 'axis', x: M.left - 8, y: y(v) + 4, 'text-anchor': 'end' }, tick(v)),
    );

  const bars = days.map((day, i) => {
    const x = M.left + i * band + (band - barW) / 2;
    let base = 0;
    const segments = series.map((x0, k) => {
      const v = x0.values[i] ?? 0;
      if (v <= 0) return null;
      const rect = s(
        'rect',
        {
          class: `series-${k % SERIES_COLOURS}`,
          x,
          width: barW,
          y: y(base + v),
          height: Math.max(1, y(base) - y(base + v)),
        },
        s('title', {}, `${formatDay(day)} · ${x0.name}: ${format(v)} ${unit}`),
      );
      base += v;
      return rect;
    });
    const label =
      i % labelEvery === 0
        ? s(
            'text',
            { class: 'axis', x: x + barW / 2, y: H - M.bottom + 18, 'text-anchor': 'middle' },
            formatDay(day),
          )
        : null;
    return s('g', { class: 'bar' }, segments, label);
  });

  const titleId = `chart-${Math.random().toString(36).slice(2)}`;
  const svg = s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-labelledby': titleId },
    s('title', { id: titleId }, title),
    grid,
    s('line', { class: 'baseline', x1: M.left, x2: W - M.right, y1: y(0), y2: y(0) }),
    bars,
    max === 0
      ? s(
          'text',
          { class: 'empty-note', x: M.left + plotW / 2, y: M.top + plotH / 2, 'text-anchor': 'middle' },
          'Nothing in this period',
        )
      : null,
  );
  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    series.map((x, k) =>
      h('li', {}, h('span', { class: `swatch series-${k % SERIES_COLOURS}`, 'aria-hidden': 'true' }), x.name),
    ),
  );
  return h('figure', { class: 'chart-figure' }, svg, series.length ? legend : null);
}
