import { StringDecoder } from 'node:string_decoder';

/** A child that never prints a newline still gets its output shown, in pieces of this size. */
const MAX_LINE = 16 * 1024;

/**
 * Splits a byte stream into lines. Chunks may end mid-line or mid-character: the tail is kept
 * until its newline arrives (or `flush()` at exit), so a line is never cut in two.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  push(chunk: Buffer | string): string[] {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const lines: string[] = [];
    let newline = this.pending.indexOf('\n');
    while (newline !== -1) {
      lines.push(withoutCr(this.pending.slice(0, newline)));
      this.pending = this.pending.slice(newline + 1);
      newline = this.pending.indexOf('\n');
    }
    while (this.pending.length >= MAX_LINE) {
      lines.push(this.pending.slice(0, MAX_LINE));
      this.pending = this.pending.slice(MAX_LINE);
    }
    return lines;
  }

  /** The unterminated last line, if any (call once the stream has ended). */
  flush(): string[] {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return rest === '' ? [] : [withoutCr(rest)];
  }
}

const withoutCr = (text: string): string => (text.endsWith('\r') ? text.slice(0, -1) : text);
