/**
 * Decodes a UTF-8 byte stream chunk by chunk, with the output of a streaming `TextDecoder`
 * (a leading BOM dropped, U+FFFD for malformed bytes) but through Buffer's decoder: one-byte
 * strings for ASCII text and no converter state, where `decode(chunk, { stream: true })` took a
 * third more heap per chunk. A sequence a chunk leaves unfinished waits for the next one.
 */
export class Utf8Chunks {
  /** The bytes of a sequence the last chunk began and did not finish (at most 3). */
  private carry: Buffer | null = null;
  /** Whether text was produced since the start: only the stream's first character may be a BOM. */
  private started = false;

  decode(chunk: Uint8Array): string {
    let bytes = asBuffer(chunk);
    if (this.carry !== null) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = null;
    }
    const whole = bytes.length - unfinishedTail(bytes);
    if (whole < bytes.length) {
      // A copy: the upstream's buffer is not ours to hold on to.
      this.carry = Buffer.from(bytes.subarray(whole));
      bytes = bytes.subarray(0, whole);
    }
    return this.text(bytes);
  }

  /** The end of the stream: an unfinished sequence is malformed (U+FFFD). Ready for a new stream. */
  end(): string {
    const rest = this.carry;
    this.carry = null;
    const text = rest === null ? '' : this.text(rest);
    this.started = false;
    return text;
  }

  private text(bytes: Buffer): string {
    if (bytes.length === 0) return '';
    const text = bytes.toString('utf8');
    if (this.started) return text;
    this.started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}

function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * How many bytes at the end start a sequence the chunk does not finish (0 to 3). Holding back from
 * a lead byte is always safe: the decoder is at a sequence boundary before any lead byte (one that
 * cuts a sequence short ends it as U+FFFD, as the end of the input does).
 */
function unfinishedTail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const byte = bytes[n - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}
