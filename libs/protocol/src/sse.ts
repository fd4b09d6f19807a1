import { Utf8Chunks } from './utf8-chunks.js';

/**
 * Splits a byte stream of Server-Sent Events into whole events without decoding more than once.
 * Events are returned as their raw text (including the trailing blank line), so a passthrough can
 * forward them byte for byte and only parse the few it needs to look into.
 */
export class SseEventSplitter {
  private pending = '';
  /** Where the next event starts in `pending`: events are sliced off it without copying the rest. */
  private at = 0;
  private readonly decoder = new Utf8Chunks();

  /** Feeds a chunk; returns the complete events it closed (possibly none). */
  push(chunk: Uint8Array): string[] {
    this.feed(chunk);
    const events: string[] = [];
    for (let event = this.next(); event !== null; event = this.next()) events.push(event);
    return events;
  }

  /** Feeds a chunk, whose complete events `next` then returns: no array per chunk. */
  feed(chunk: Uint8Array): void {
    const text = this.decoder.decode(chunk);
    this.pending = this.at === 0 ? this.pending + text : this.pending.slice(this.at) + text;
    this.at = 0;
  }

  /** The next complete event fed, or null until a chunk closes another. */
  next(): string | null {
    const start = this.at;
    const end = findEventEnd(this.pending, start);
    if (end < 0) {
      if (start > 0) {
        this.pending = this.pending.slice(start);
        this.at = 0;
      }
      return null;
    }
    this.at = end;
    return this.pending.slice(start, end);
  }

  /** Whatever was left without a closing blank line (a cut-off stream). */
  flush(): string {
    const rest = this.pending.slice(this.at) + this.decoder.end();
    this.pending = '';
    this.at = 0;
    return rest;
  }
}

/** Index just past the blank line that ends the event starting at `from`, or -1. */
function findEventEnd(text: string, from: number): number {
  for (let i = text.indexOf('\n', from); i >= 0; i = text.indexOf('\n', i + 1)) {
    const next = text.charCodeAt(i + 1);
    if (next === 10) return i + 2; // \n\n
    if (next === 13 && text.charCodeAt(i + 2) === 10) return i + 3; // \n\r\n
  }
  return -1;
}

/**
 * The concatenated `data:` payload of one raw event, or null if it has none. Lines end at `\n`
 * or `\r\n`. Read in place with indexOf, no array of lines: a stream calls it on every event, and
 * the lines split out only to be dropped were most of a stream request's bytes in this module.
 */
export function sseData(event: string): string | null {
  let data: string | null = null;
  const length = event.length;
  for (let start = 0; start <= length;) {
    const newline = event.indexOf('\n', start);
    const end = newline < 0 ? length : newline;
    if (event.startsWith('data:', start)) {
      // A `\r` ends the line only before its `\n`; one space after the colon is not the value's.
      const lineEnd = newline > start && event.charCodeAt(newline - 1) === 13 ? newline - 1 : end;
      const from = start + 5 < lineEnd && event.charCodeAt(start + 5) === 32 ? start + 6 : start + 5;
      const value = event.slice(from, lineEnd);
      data = data === null ? value : `${data}\n${value}`;
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  return data;
}

/** The `event:` field of one raw event, or null when it has none (OpenAI chat streams). */
export function sseEventName(event: string): string | null {
  if (!event.startsWith('event:')) {
    const at = event.indexOf('\nevent:');
    if (at < 0) return null;
    event = event.slice(at + 1);
  }
  const end = event.search(/\r?\n/);
  const line = end < 0 ? event : event.slice(0, end);
  return line.charCodeAt(6) === 32 ? line.slice(7) : line.slice(6);
}
