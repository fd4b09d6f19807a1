import { StringDecoder } from 'node:string_decoder';

/** Foreground colors handed out to children in start order (cyan, yellow, magenta, green, blue, ...). */
const PALETTE = [36, 33, 35, 32, 34, 96, 93];
/** A child that never prints a newline still gets its output shown, in pieces of this size. */
const MAX_LINE = 16 * 1024;

export interface LabelOptions {
  /** Width the name is padded to, so every `|` lines up. */
  readonly width: number;
  readonly color: boolean;
}

/** `edge    | ` (colored when asked): the fixed-width prefix of every line a child prints. */
export function label(name: string, index: number, options: LabelOptions): string {
  const padded = name.padEnd(options.width);
  if (!options.color) return `${padded} | `;
  const code = PALETTE[index % PALETTE.length] ?? 36;
  return `\x1b[${code}m${padded} |\x1b[0m `;
}

/**
 * Prefixes each complete line of a byte stream. Chunks may end mid-line or mid-character: the
 * tail is kept until its newline arrives (or `flush()` at exit), so lines never interleave.
 */
export class LinePrefixer {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(private readonly prefix: string) {}

  push(chunk: Buffer | string): string {
    this.pending += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let out = '';
    let newline = this.pending.indexOf('\n');
    while (newline !== -1) {
      out += this.line(this.pending.slice(0, newline));
      this.pending = this.pending.slice(newline + 1);
      newline = this.pending.indexOf('\n');
    }
    while (this.pending.length >= MAX_LINE) {
      out += this.line(this.pending.slice(0, MAX_LINE));
      this.pending = this.pending.slice(MAX_LINE);
    }
    return out;
  }

  /** The unterminated last line, if any (call once the stream has ended). */
  flush(): string {
    const rest = this.pending + this.decoder.end();
    this.pending = '';
    return rest === '' ? '' : this.line(rest);
  }

  private line(text: string): string {
    return `${this.prefix}${text.endsWith('\r') ? text.slice(0, -1) : text}\n`;
  }
}
