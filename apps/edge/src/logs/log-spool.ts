import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, writeSync } from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type RequestLogJob } from '#libs/queue';

const SUFFIX = '.jsonl';
const NAME = /^logs-\d{13}-[\w-]+\.jsonl$/;

export interface SpoolFile {
  readonly name: string;
  readonly logs: RequestLogJob[];
  /** Lines that were not JSON: only the tail of a file cut by a crash mid-write can hold one. */
  readonly unreadable: number;
}

/**
 * Request logs Redis could not take, on local disk: append-only JSON lines (one log a line) in
 * `dir`, one file per spill run of this process. Writes are synchronous and fsynced, so a log is
 * on disk when `append` returns, even if the process is killed right after; they only happen while
 * Redis is unreachable and at shutdown, never on the hot path. Files are named by their creation
 * time, so replay goes oldest first. Several edges may share the directory: two replaying one file
 * only send its logs twice, which the worker ignores (idempotent by request id).
 */
export class LogSpool {
  /** The file this process appends to; sealed (a new one is started) before a replay reads files. */
  private current: string | null = null;

  constructor(readonly dir: string) {}

  /** Appends the logs as JSON lines and fsyncs; throws if the disk refuses (the caller keeps them). */
  append(logs: readonly RequestLogJob[]): void {
    if (logs.length === 0) return;
    mkdirSync(this.dir, { recursive: true });
    this.current ??= `logs-${Date.now()}-${process.pid}-${randomBytes(3).toString('hex')}${SUFFIX}`;
    const fd = openSync(join(this.dir, this.current), 'a', 0o600);
    try {
      writeSync(fd, logs.map((log) => JSON.stringify(log)).join('\n') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  /** Spool file names, oldest first; after this call new appends go to a new file. */
  seal(): string[] {
    this.current = null;
    try {
      return readdirSync(this.dir)
        .filter((name) => NAME.test(name))
        .sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** True when any spool file waits (this process's or another's). */
  hasFiles(): boolean {
    try {
      return readdirSync(this.dir).some((name) => NAME.test(name));
    } catch {
      return false;
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

  /** Deletes a replayed file; one already deleted (another edge replayed it too) is fine. */
  async remove(name: string): Promise<void> {
    await unlink(join(this.dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
}
