import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  statSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type RequestLogJob } from '#libs/queue';

/**
 * `logs-<ms>-<writer>.jsonl` while its writer may append; `...-<writer>.done.jsonl` once the writer
 * is finished with it (shutdown); either with `.claimed-<replayer>` appended while being replayed.
 */
const FILE = /^(logs-\d{13}-[0-9a-f]+-[0-9a-f]+(\.done)?\.jsonl)(?:\.claimed-([0-9a-f]+-[0-9a-f]+))?$/;
/** Another edge's file untouched this long is no longer being written (it appends within ms). */
const QUIET_MS = 10_000;
/** A claim this old belongs to an edge that died while replaying: anyone may take it over. */
const STALE_CLAIM_MS = 10 * 60_000;

export interface SpoolFile {
  readonly name: string;
  readonly logs: RequestLogJob[];
  /** Lines that were not JSON: only the tail of a file cut by a crash mid-write can hold one. */
  readonly unreadable: number;
}

/**
 * Request logs Redis could not take, on local disk: append-only JSON lines (one log a line) in
 * `dir`. Writes are synchronous and fsynced, so a log is on disk when `append` returns, even if the
 * process is killed right after; they only happen while Redis is unreachable and at shutdown, never
 * on the hot path. Files are named by creation time and writer, so replay goes oldest first.
 *
 * Several edges may share the directory (a ReadWriteMany volume): an edge replays its own files,
 * files their writer finished (`.done`, renamed at its shutdown), and a file of a writer that died
 * without finishing it once nobody has written to it for QUIET_MS; it first claims a file by renaming
 * it (atomic, so two edges never replay the same file), and a claim left by an edge that died is
 * taken over after STALE_CLAIM_MS. A file replayed twice would only send its logs twice, which the
 * worker ignores (idempotent by request id).
 */
export class LogSpool {
  /** This process's mark in file names: `<pid>-<random>`. */
  private readonly tag = `${process.pid.toString(16)}-${randomBytes(3).toString('hex')}`;
  /** The file this process appends to; sealed (a new one is started) before a replay. */
  private current: string | null = null;

  constructor(readonly dir: string) {}

  /** Appends the logs as JSON lines and fsyncs; throws if the disk refuses (the caller keeps them). */
  append(logs: readonly RequestLogJob[]): void {
    if (logs.length === 0) return;
    mkdirSync(this.dir, { recursive: true });
    this.current ??= `logs-${Date.now()}-${this.tag}.jsonl`;
    const fd = openSync(join(this.dir, this.current), 'a', 0o600);
    try {
      writeSync(fd, logs.map((log) => JSON.stringify(log)).join('\n') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** The writer is done with its current file (shutdown): anyone may replay it at once. */
  finish(): void {
    if (this.current === null) return;
    const done = this.current.replace(/\.jsonl$/, '.done.jsonl');
    renameSync(join(this.dir, this.current), join(this.dir, done));
    this.current = null;
  }

  /** True when any spool file waits (this process's or another's). */
  hasFiles(): boolean {
    return this.list().length > 0;
  }

  /** The files a replay may take now, oldest first; from now on appends go to a new file. */
  seal(now = Date.now()): string[] {
    this.current = null;
    return this.list()
      .filter((name) => this.replayable(name, now))
      .sort();
  }

  /** Takes a file for replay (rename); null when another edge took it first. Returns its new name. */
  claim(name: string): string | null {
    const base = FILE.exec(name)?.[1];
    if (base === undefined) return null;
    const claimed = `${base}.claimed-${this.tag}`;
    try {
      renameSync(join(this.dir, name), join(this.dir, claimed));
      const now = new Date();
      utimesSync(join(this.dir, claimed), now, now); // the claim's age starts now
      return claimed;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async read(name: string): Promise<SpoolFile> {
    const text = await readFile(join(this.dir, name), 'utf8');
    const logs: RequestLogJob[] = [];
    let unreadable = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        // The worker validates every log; a line that parses is passed on as written.
        logs.push(JSON.parse(line) as RequestLogJob);
      } catch {
        unreadable++;
      }
    }
    return { name, logs, unreadable };
  }

  /** Deletes a replayed file; one already deleted is fine. */
  async remove(name: string): Promise<void> {
    await unlink(join(this.dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  private list(): string[] {
    try {
      return readdirSync(this.dir).filter((name) => FILE.test(name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  private replayable(name: string, now: number): boolean {
    const [, base, done, claimedBy] = FILE.exec(name) ?? [];
    if (claimedBy === this.tag) return true; // our own claim, from a replay cut short
    if (claimedBy === undefined && (done || base?.endsWith(`-${this.tag}.jsonl`))) return true;
    try {
      const age = now - statSync(join(this.dir, name)).mtimeMs;
      return age >= (claimedBy === undefined ? QUIET_MS : STALE_CLAIM_MS);
    } catch {
      return false; // gone since the listing
    }
  }
}
