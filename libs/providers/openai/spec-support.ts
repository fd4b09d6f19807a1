import { readFileSync } from 'node:fs';
import { SseEventSplitter } from '#libs/protocol';
import { type SseEvent, type SseFrame } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';

/** Test helpers shared by this folder's specs (golden fixtures and SSE text). */

export const fixtureText = (name: string): string =>
  readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

export const fixtureJson = <T = JsonObject>(name: string): T => JSON.parse(fixtureText(name)) as T;

/** Splits SSE text into events as the edge hands them to a provider stream transform. */
export function sseEvents(text: string): SseEvent[] {
  return new SseEventSplitter().push(new TextEncoder().encode(text)).map((raw) => {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of raw.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
    }
    return { event, data: data.join('\n') };
  });
}

/** Frames as the edge writes them to the client. */
export const sseText = (frames: readonly SseFrame[]): string =>
  frames.map((f) => `${f.event === undefined ? '' : `event: ${f.event}\n`}data: ${f.data}\n\n`).join('');
