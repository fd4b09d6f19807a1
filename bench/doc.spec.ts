import { describe, expect, it } from '@jest/globals';
import { KEPT_MARKER, keptSection, renderDoc } from './doc.js';
import { benchReport, cellResult } from './report-fixtures.js';
import { readSettings } from './settings.js';

describe('keptSection', () => {
  it('keeps the hand-written tail of the previous doc, marker included', () => {
    const previous = `# Benchmarks\n\ngenerated\n\n${KEPT_MARKER}\n\n## Node 20 and Node 24\n\nrounds\n`;
    expect(keptSection(previous)).toBe(`\n${KEPT_MARKER}\n\n## Node 20 and Node 24\n\nrounds\n`);
  });

  it('keeps nothing from a doc without the marker, or no doc', () => {
    expect(keptSection('# Benchmarks\n\ngenerated\n')).toBe('');
    expect(keptSection('')).toBe('');
  });
});

describe('renderDoc', () => {
  const cells = [cellResult('non-stream', 1), cellResult('non-stream', 32), cellResult('stream', 32)];

  it("names the edge flags of the run, production's and the variant's, and the heap table", () => {
    const settings = readSettings({ BENCH_EDGE_NODE_OPTIONS: '--single-threaded-gc' }, []);
    const doc = renderDoc(benchReport(cells, { settings }), '/repo');
    expect(doc).toContain(
      "- The edge's Node flags: `--max-old-space-size=512` `--max-semi-space-size=8` `--single-threaded-gc` (the last from BENCH_EDGE_NODE_OPTIONS)",
    );
    expect(doc).toContain('this run: `--single-threaded-gc`)');
    expect(doc).toContain('### Heap allocation per request');
    expect(doc).toContain('| workload | conc. | allocated KB/req | promoted KB/req |');
  });

  it('says that fewer than three rounds per cell are a trial, and not when there are three', () => {
    const trial = renderDoc(
      benchReport(cells, { settings: readSettings({ BENCH_PAIRS: '1' }, []) }),
      '/repo',
    );
    expect(trial).toContain('1 rounds (**fewer than 3: read these figures as a trial, not a result**)');
    const full = renderDoc(benchReport(cells), '/repo');
    expect(full).toContain('the bench runs 3 rounds, each target once per round');
    expect(full).not.toContain('fewer than 3');
  });
});
