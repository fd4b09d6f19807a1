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

export interface AccumulatedMessage {
  readonly content: Record<string, unknown>[];
  readonly stopReason: unknown;
  readonly usage: Record<string, unknown>;
}

/**
 * Reads an Anthropic event sequence the strict way: message_start first, message_stop last,
 * message_delta right before it, blocks opened one at a time with consecutive indexes and
 * closed before the next opens, every delta inside its block and of its block's kind. Throws on
 * the first violation; returns the accumulated message (tool inputs still as JSON text).
 */
export function readAnthropicEvents(frames: readonly SseFrame[]): AccumulatedMessage {
  const events = frames.map((f) => {
    const data = JSON.parse(f.data) as Record<string, unknown>;
    if (data.type !== f.event)
      throw new Error(`event name ${f.event} differs from data.type ${String(data.type)}`);
    return data;
  });
  const fail = (why: string): never => {
    throw new Error(`${why}: ${JSON.stringify(events.map((e) => e.type))}`);
  };
  if (events[0]?.type !== 'message_start') fail('message_start must come first');
  if (events.at(-1)?.type !== 'message_stop') fail('message_stop must come last');
  if (events.at(-2)?.type !== 'message_delta') fail('message_delta must precede message_stop');
  const content: Record<string, unknown>[] = [];
  let open: number | null = null;
  for (const e of events.slice(1, -2)) {
    if (e.type === 'ping') continue;
    const index = e.index as number;
    if (e.type === 'content_block_start') {
      if (open !== null) fail(`block ${index} opened while ${open} is open`);
      if (index !== content.length) fail(`block index ${index} is not ${content.length}`);
      const block = { ...(e.content_block as Record<string, unknown>) };
      if (block.type === 'tool_use') block.input = '';
      content.push(block);
      open = index;
    } else if (e.type === 'content_block_stop') {
      if (open !== index) fail(`stop for ${index} while ${String(open)} is open`);
      open = null;
    } else if (e.type === 'content_block_delta') {
      if (open !== index) fail(`delta for ${index} while ${String(open)} is open`);
      const block = content[index]!;
      const d = e.delta as Record<string, string>;
      const field = { text_delta: 'text', thinking_delta: 'thinking', input_json_delta: 'input' }[d.type!];
      const kind = {
        text_delta: 'text',
        thinking_delta: 'thinking',
        input_json_delta: 'tool_use',
        signature_delta: 'thinking',
      }[d.type!];
      if (block.type !== kind) fail(`${d.type} in a ${String(block.type)} block`);
      if (d.type === 'signature_delta') block.signature = d.signature;
      else block[field!] = String(block[field!]) + (d.text ?? d.thinking ?? d.partial_json);
    } else fail(`unexpected ${String(e.type)}`);
  }
  if (open !== null) fail(`block ${open} never closed`);
  const last = events.at(-2)!;
  return {
    content,
    stopReason: (last.delta as Record<string, unknown>).stop_reason,
    usage: last.usage as Record<string, unknown>,
  };
}
