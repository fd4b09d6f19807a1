import { describe, expect, it } from '@jest/globals';
import { LinePrefixer, label } from './output.js';

describe('label', () => {
  it('pads names to one width so the bars line up', () => {
    expect(label('edge', 0, { width: 7, color: false })).toBe('edge    | ');
    expect(label('console', 1, { width: 7, color: false })).toBe('console | ');
  });

  it('colors only when asked, and keeps the visible width', () => {
    expect(label('edge', 0, { width: 7, color: true })).toBe('\x1b[36medge    |\x1b[0m ');
    expect(label('edge', 0, { width: 7, color: false })).toBe('edge    | ');
  });
});

describe('LinePrefixer', () => {
  it('prefixes every complete line of a chunk', () => {
    expect(new LinePrefixer('a | ').push('one\ntwo\n')).toBe('a | one\na | two\n');
  });

  it('holds a partial line until its newline arrives in a later chunk', () => {
    const p = new LinePrefixer('a | ');
    expect(p.push('hel')).toBe('');
    expect(p.push('lo\nwor')).toBe('a | hello\n');
    expect(p.push('ld\n')).toBe('a | world\n');
  });

  it('flushes an unterminated last line once, and nothing when empty', () => {
    const p = new LinePrefixer('a | ');
    p.push('done\nbye');
    expect(p.flush()).toBe('a | bye\n');
    expect(p.flush()).toBe('');
  });

  it('keeps a multi-byte character split across chunks intact', () => {
    const bytes = Buffer.from('café ✓\n');
    const p = new LinePrefixer('> ');
    const out = [p.push(bytes.subarray(0, 4)), p.push(bytes.subarray(4, 7)), p.push(bytes.subarray(7))].join(
      '',
    );
    expect(out).toBe('> café ✓\n');
  });

  it('turns CRLF into LF and keeps empty lines', () => {
    expect(new LinePrefixer('> ').push('a\r\n\r\nb\n')).toBe('> a\n> \n> b\n');
  });

  it('breaks a line that never ends into bounded pieces', () => {
    const out = new LinePrefixer('> ').push('x'.repeat(40 * 1024));
    expect(
      out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.length),
    ).toEqual([16 * 1024 + 2, 16 * 1024 + 2]);
  });
});
