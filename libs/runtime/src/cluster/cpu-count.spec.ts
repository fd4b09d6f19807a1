import { describe, expect, it } from '@jest/globals';
import { type CpuFacts, processesFor, quotaCpus } from './cpu-count.js';

const facts = (over: Partial<CpuFacts>): CpuFacts => ({
  parallelism: 8,
  cpuMax: null,
  cfsQuotaUs: null,
  cfsPeriodUs: null,
  ...over,
});

describe('quotaCpus', () => {
  it('reads cgroup v2 cpu.max, rounding a fractional limit up', () => {
    expect(quotaCpus(facts({ cpuMax: '200000 100000\n' }))).toBe(2);
    expect(quotaCpus(facts({ cpuMax: '150000 100000' }))).toBe(2);
    expect(quotaCpus(facts({ cpuMax: '50000 100000' }))).toBe(1);
    expect(quotaCpus(facts({ cpuMax: 'max 100000' }))).toBeNull();
  });

  it('falls back to cgroup v1 (-1 = no quota)', () => {
    expect(quotaCpus(facts({ cfsQuotaUs: '300000\n', cfsPeriodUs: '100000\n' }))).toBe(3);
    expect(quotaCpus(facts({ cfsQuotaUs: '-1', cfsPeriodUs: '100000' }))).toBeNull();
    expect(quotaCpus(facts({}))).toBeNull();
  });
});

describe('processesFor', () => {
  it('takes a number as given', () => {
    expect(processesFor(3, facts({ cpuMax: '100000 100000' }))).toBe(3);
  });

  it('auto: the CPUs it may run on, capped by the quota', () => {
    expect(processesFor('auto', facts({}))).toBe(8);
    expect(processesFor('auto', facts({ cpuMax: '200000 100000' }))).toBe(2);
    expect(processesFor('auto', facts({ parallelism: 2, cpuMax: '400000 100000' }))).toBe(2);
  });
});
