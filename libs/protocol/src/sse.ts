/** decode()'s options for a chunk of a stream: one object for every call, not one per chunk. */
const STREAMING: { readonly stream: boolean } = { stream: true };

/**
 * Splits a byte stream of Server-Sent Events into whole events without decoding more than once.
 * Events are returned as their raw text (including the trailing blank line), so a passthrough can
 * forward them byte for byte and only parse the few it needs to look into.
 */
export class SseEventSplitter {
  private pending = '';
  private readonly decoder = new TextDecoder();

  /** Feeds a chunk; returns the complete events it closed (possibly none). */
  push(chunk: Uint8Array): string[] {
    this.pending += this.decoder.decode(chunk, STREAMING);
    const events: string[] = [];
    let start = 0;
    for (;;) {
      const end = findEventEnd(this.pending, start);
      if (end < 0) break;
      events.push(this.pending.slice(start, end));
      start = end;
    }
    this.pending = start === 0 ? this.pending : this.pending.slice(start);
    return events;
  }

  /** Whatever was left without a closing blank line (a cut-off stream). */
  flush(): string {
    const rest = this.pending + this.decoder.decode();
    this.pending = '';
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
