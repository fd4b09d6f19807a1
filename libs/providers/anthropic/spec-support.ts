import { readFileSync } from 'node:fs';
import { SseEventSplitter } from '#libs/protocol';
import { type SseEvent, type SseFrame } from '../src/translation.js';

/** Test support for this folder's specs: fixtures and SSE framing. Not exported by index.ts. */

export const fixture = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

export const json = <T = Record<string, unknown>>(name: string): T => JSON.parse(fixture(name)) as T;

/** Splits recorded SSE text into events the way the edge does (event name + data). */
export function sseEvents(text: string): SseEvent[] {
  return new SseEventSplitter().push(new TextEncoder().encode(text)).map((raw) => {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of raw.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    return { event, data: data.join('\n') };
  });
}

/** Frames as the edge writes them. */
export function frameText(frames: readonly SseFrame[]): string {
  return frames
    .map((f) => `${f.event !== undefined ? `event: ${f.event}\n` : ''}data: ${f.data}\n\n`)
    .join('');
}
