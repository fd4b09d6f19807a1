import type { MockStats, RecordedRequest } from './types.js';

/** The bounded log of received requests, and per-path counts that survive log truncation. */
export class RequestLog {
  private entries: RecordedRequest[] = [];
  private byPath: Record<string, number> = {};
  private total = 0;

  constructor(private limit: number) {}

  record(entry: RecordedRequest): void {
    this.total++;
    this.byPath[entry.path] = (this.byPath[entry.path] ?? 0) + 1;
    if (this.limit === 0) return;
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.shift();
  }

  setLimit(limit: number): void {
    this.limit = limit;
    if (this.entries.length > limit) this.entries = this.entries.slice(this.entries.length - limit);
  }

  list(): RecordedRequest[] {
    return this.entries.slice();
  }

  stats(): MockStats {
    return { total: this.total, byPath: { ...this.byPath } };
  }

  clear(): void {
    this.entries = [];
    this.byPath = {};
    this.total = 0;
  }
}
