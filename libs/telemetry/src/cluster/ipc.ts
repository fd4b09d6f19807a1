import { type Attributes } from '@opentelemetry/api';
import { hostname } from 'node:os';
import { type Worker } from 'node:cluster';
import { METRICS_OFF_TEXT, localSnapshot, setPrometheusSource } from '../prometheus.js';
import { mergeSnapshots, summablePart, type WorkerSnapshot } from './merge.js';
import { type MetricsSnapshot, snapshotText } from './snapshot.js';

/**
 * `/metrics` of a cluster: any worker may take the scrape (the primary hands connections out in
 * turn), so the worker asks the primary, the primary asks every worker for its collection and
 * answers the sum. One scrape target per pod, counting every request the pod served.
 */
const ASK = 'gateway.metrics.ask';
const ANSWER = 'gateway.metrics.answer';
const COLLECT = 'gateway.metrics.collect';
const SNAPSHOT = 'gateway.metrics.snapshot';

type Message =
  | { readonly type: typeof ASK; readonly id: number }
  | { readonly type: typeof ANSWER; readonly id: number; readonly text: string | null }
  | { readonly type: typeof COLLECT; readonly round: number }
  | { readonly type: typeof SNAPSHOT; readonly round: number; readonly snapshot: MetricsSnapshot | null };

const isMessage = (m: unknown): m is Message =>
  typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';

/** A worker waits this long for the primary's answer; the scrape fails (500) past it. */
const ASK_TIMEOUT_MS = 5_000;

/**
 * In a cluster worker: answers the primary's collections with this process's metrics, and serves
 * `/metrics` with the primary's sum from now on.
 */
export function joinClusterMetrics(): void {
  const send = (m: Message): void => void process.send?.(m);
  const waiting = new Map<number, (text: string | null) => void>();
  let nextId = 0;
  process.on('message', (m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === COLLECT) {
      localSnapshot().then(
        (snapshot) => send({ type: SNAPSHOT, round: m.round, snapshot }),
        () => send({ type: SNAPSHOT, round: m.round, snapshot: null }),
      );
    } else if (m.type === ANSWER) waiting.get(m.id)?.(m.text);
  });
  setPrometheusSource(
    () =>
      new Promise<string>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the cluster primary did not answer a scrape within ${ASK_TIMEOUT_MS} ms`));
        }, ASK_TIMEOUT_MS);
        waiting.set(id, (text) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (text === null) reject(new Error('the cluster primary could not collect the metrics'));
          else resolve(text);
        });
        send({ type: ASK, id });
      }),
  );
}

/**
 * In the primary: keeps each worker's last collection, and folds a dead worker's counters and
 * histograms into the pod's totals, so they never go down when a worker is replaced (Prometheus
 * would take a drop for a counter reset and count the survivors' totals again in `rate()`). What a
 * dead worker counted after the last scrape is lost, as it would be for a crashed pod.
 */
export class ClusterMetricsHub {
  private readonly workers = new Map<number, Worker>();
  private readonly last = new Map<number, WorkerSnapshot>();
  private readonly rounds = new Map<number, (id: number, s: MetricsSnapshot | null) => void>();
  private retired: WorkerSnapshot | null = null;
  private nextRound = 0;

  constructor(private readonly collectTimeoutMs = 2_000) {}

  attach(worker: Worker): void {
    this.workers.set(worker.id, worker);
    worker.on('message', (m: unknown) => {
      if (!isMessage(m)) return;
      if (m.type === SNAPSHOT) this.rounds.get(m.round)?.(worker.id, m.snapshot);
      else if (m.type === ASK)
        this.scrape().then(
          (text) => send(worker, { type: ANSWER, id: m.id, text }),
          () => send(worker, { type: ANSWER, id: m.id, text: null }),
        );
    });
  }

  /** The worker is gone: what it had counted stays in the totals. */
  detach(worker: Worker): void {
    this.workers.delete(worker.id);
    const last = this.last.get(worker.id);
    this.last.delete(worker.id);
    if (!last) return;
    const part = { pid: last.pid, snapshot: summablePart(last.snapshot) };
    this.retired = { pid: 0, snapshot: mergeSnapshots(this.retired ? [this.retired, part] : [part], {}) };
  }

  /** Every worker's metrics now (a late one's last collection), summed, as Prometheus text. */
  async scrape(): Promise<string> {
    await this.collect();
    const parts = [...this.last.values()];
    if (parts.length === 0) return METRICS_OFF_TEXT;
    const resource: Attributes = {
      ...parts[0]!.snapshot.resource,
      // The pod is the instance: its primary's pid, as a single process names itself by its own.
      'service.instance.id': `${hostname()}-${process.pid}`,
    };
    return snapshotText(mergeSnapshots(this.retired ? [...parts, this.retired] : parts, resource));
  }

  private collect(): Promise<void> {
    const round = this.nextRound++;
    const expected = new Set(this.workers.keys());
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.rounds.delete(round);
        resolve();
      };
      const timer = setTimeout(done, this.collectTimeoutMs);
      this.rounds.set(round, (id, snapshot) => {
        const worker = this.workers.get(id);
        if (snapshot && worker?.process.pid) this.last.set(id, { pid: worker.process.pid, snapshot });
        expected.delete(id);
        if (expected.size === 0) done();
      });
      for (const worker of this.workers.values()) send(worker, { type: COLLECT, round });
      if (expected.size === 0) done();
    });
  }
}

/** A worker that is exiting may have closed its channel: the message is dropped, not thrown. */
function send(worker: Worker, m: Message): void {
  if (worker.isConnected()) worker.send(m, undefined, () => undefined);
}
