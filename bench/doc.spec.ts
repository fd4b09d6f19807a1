import { describe, expect, it } from '@jest/globals';
import { KEPT_MARKER, keptSection } from './doc.js';

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
