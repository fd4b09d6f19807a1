import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { type ProcessCount } from '#libs/config';

/** What the machine and the container's cgroup say, read once (tests pass their own). */
export interface CpuFacts {
  /** CPUs this process may run on (`os.availableParallelism()`: its affinity mask). */
  readonly parallelism: number;
  /** cgroup v2 `cpu.max` ("<quota> <period>" or "max <period>"), null when absent. */
  readonly cpuMax: string | null;
  /** cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us`, null when absent. */
  readonly cfsQuotaUs: string | null;
  readonly cfsPeriodUs: string | null;
}

/**
 * CPUs the cgroup quota allows, rounded up (1.5 CPUs -> 2: a second process still gets the half
 * core a single event loop could not use, as the JVM and .NET count it and as the Kubernetes
 * downward API reports `limits.cpu`); null without a quota.
 */
export function quotaCpus(facts: CpuFacts): number | null {
  const [quota, period] = facts.cpuMax?.trim().split(/\s+/) ?? [
    facts.cfsQuotaUs?.trim(),
    facts.cfsPeriodUs?.trim(),
  ];
  const q = Number(quota);
  const p = Number(period);
  // "max" (v2) and -1 (v1) mean no quota.
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return null;
  return Math.max(1, Math.ceil(q / p));
}

/** `auto`: one process per CPU the container may use, the smaller of affinity and quota. */
export function processesFor(setting: ProcessCount, facts: CpuFacts): number {
  if (setting !== 'auto') return setting;
  const quota = quotaCpus(facts);
  return Math.max(1, Math.min(facts.parallelism, quota ?? facts.parallelism));
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * This container's facts. Inside a container the cgroup namespace puts its own group at the root
 * of /sys/fs/cgroup, which is where Kubernetes and Docker write its CPU limit.
 */
export function readCpuFacts(): CpuFacts {
  return {
    parallelism: availableParallelism(),
    cpuMax: readOrNull('/sys/fs/cgroup/cpu.max'),
    cfsQuotaUs: readOrNull('/sys/fs/cgroup/cpu/cpu.cfs_quota_us'),
    cfsPeriodUs: readOrNull('/sys/fs/cgroup/cpu/cpu.cfs_period_us'),
  };
}
