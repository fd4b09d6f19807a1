import { describe, expect, it } from '@jest/globals';
import { sseData, sseEventName, SseEventSplitter } from './sse.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('SseEventSplitter', () => {
  it('splits whole events and keeps partial ones for the next chunk', () => {
    const s = new SseEventSplitter();
    expect(s.push(enc('data: {"a":1}\n\ndata: {"b"'))).toEqual(['data: {"a":1}\n\n']);
    expect(s.push(enc(':2}\n\n'))).toEqual(['data: {"b":2}\n\n']);
    expect(s.flush()).toBe('');
  });

  it('handles CRLF framing and multi-byte characters split across chunks', () => {
    const s = new SseEventSplitter();
    const bytes = enc('event: x\r\ndata: "é"\r\n\r\n');
    const cut = bytes.indexOf(0xa9); // second byte of é
    expect(s.push(bytes.slice(0, cut))).toEqual([]);
    expect(s.push(bytes.slice(cut))).toEqual(['event: x\r\ndata: "é"\r\n\r\n']);
  });

  it('returns the unterminated rest on flush', () => {
    const s = new SseEventSplitter();
    s.push(enc('data: cut'));
    expect(s.flush()).toBe('data: cut');
  });

  it('hands the events of a chunk one by one with feed and next, as push returns them', () => {
    const s = new SseEventSplitter();
    s.feed(enc('data: 1\n\ndata: 2\n\ndata: 3'));
    expect(s.next()).toBe('data: 1\n\n');
    s.feed(enc('\n\n')); // fed before the rest was read: nothing is lost or reordered
    expect([s.next(), s.next(), s.next()]).toEqual(['data: 2\n\n', 'data: 3\n\n', null]);
    s.feed(enc('data: 4\r\n'));
    expect(s.next()).toBeNull();
    expect(s.push(enc('\r\n'))).toEqual(['data: 4\r\n\r\n']);
    s.feed(enc('data: 5\n\ndata: cut'));
    expect(s.next()).toBe('data: 5\n\n');
    expect(s.flush()).toBe('data: cut');
    expect(s.next()).toBeNull();
  });

  it('splits a stream cut anywhere into the same events (seeded random cuts)', () => {
    const text = 'event: a\ndata: {"é":"€"}\n\n: ping\r\n\r\ndata: 𝄞\n\ndata: [DONE]\n\n';
    const bytes = enc(text);
    let seed = 3;
    for (let round = 0; round < 500; round++) {
      const s = new SseEventSplitter();
      const events: string[] = [];
      for (let at = 0; at < bytes.length;) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        const size = 1 + (seed % 9);
        events.push(...s.push(bytes.slice(at, at + size)));
        at += size;
      }
      expect(events.join('')).toBe(text);
      expect(events).toHaveLength(4);
    }
  });
});

describe('sseData', () => {
  it('joins data lines and ignores other fields', () => {
    expect(sseData('event: message_start\ndata: {"x":1}\n\n')).toBe('{"x":1}');
    expect(sseData('data: a\ndata: b\n\n')).toBe('a\nb');
    expect(sseData(': keepalive\n\n')).toBeNull();
    expect(sseData('data:[DONE]\n\n')).toBe('[DONE]');
  });

  it('reads a line ending in \\r\\n like one ending in \\n, keeps a lone \\r, and takes one space only', () => {
    expect(sseData('data: a\r\ndata:  b\r\n\r\n')).toBe('a\n b');
    expect(sseData('data: a\rb\n\n')).toBe('a\rb');
    expect(sseData('data: a\r')).toBe('a\r');
    expect(sseData('data:')).toBe('');
    expect(sseData('data: ')).toBe('');
    expect(sseData('')).toBeNull();
    expect(sseData('x: 1\ndata')).toBeNull();
  });

  /** The definition it replaced, line by line: what every event must still read as. */
  function splitLines(event: string): string | null {
    let data: string | null = null;
    for (const line of event.split(/\r?\n/)) {
      if (!line.startsWith('data:')) continue;
      const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5);
      data = data === null ? value : `${data}\n${value}`;
    }
    return data;
  }

  it('reads any event as splitting it into lines does (seeded random events of SSE pieces)', () => {
    const pieces = [
      'data:',
      'data: ',
      'event: x',
      ':c',
      ' ',
      'a',
      '{"k":1}',
      '\n',
      '\r',
      '\r\n',
      '\n\n',
      'data',
    ];
    let seed = 25;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 5000; i++) {
      let event = '';
      for (let k = next(12); k > 0; k--) event += pieces[next(pieces.length)];
      expect([event, sseData(event)]).toEqual([event, splitLines(event)]);
    }
  });
});

describe('sseEventName', () => {
  it('reads the event field wherever it is, or null', () => {
    expect(sseEventName('event: message_start\ndata: {}\n\n')).toBe('message_start');
    expect(sseEventName('id: 1\r\nevent:ping\r\ndata: {}\r\n\r\n')).toBe('ping');
    expect(sseEventName('data: {"a":1}\n\n')).toBeNull();
  });
});
