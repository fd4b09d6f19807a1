import { describe, expect, it } from '@jest/globals';
import { LineSplitter } from './output.js';

describe('LineSplitter', () => {
  it('returns every complete line of a chunk', () => {
    expect(new LineSplitter().push('one\ntwo\n')).toEqual(['one', 'two']);
  });

  it('holds a partial line until its newline arrives in a later chunk', () => {
    const s = new LineSplitter();
    expect(s.push('hel')).toEqual([]);
    expect(s.push('lo\nwor')).toEqual(['hello']);
    expect(s.push('ld\n')).toEqual(['world']);
  });

  it('flushes an unterminated last line once, and nothing when empty', () => {
    const s = new LineSplitter();
    s.push('done\nbye');
    expect(s.flush()).toEqual(['bye']);
    expect(s.flush()).toEqual([]);
  });

  it('keeps a multi-byte character split across chunks intact', () => {
    const bytes = Buffer.from('café ✓\n');
    const s = new LineSplitter();
    const lines = [bytes.subarray(0, 4), bytes.subarray(4, 7), bytes.subarray(7)].flatMap((b) => s.push(b));
    expect(lines).toEqual(['café ✓']);
  });

  it('turns CRLF into LF and keeps empty lines', () => {
    expect(new LineSplitter().push('a\r\n\r\nb\n')).toEqual(['a', '', 'b']);
  });

  it('breaks a line that never ends into bounded pieces', () => {
    const lines = new LineSplitter().push('x'.repeat(40 * 1024));
    expect(lines.map((l) => l.length)).toEqual([16 * 1024, 16 * 1024]);
  });
});
