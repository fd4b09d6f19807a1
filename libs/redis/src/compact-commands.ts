import { Command } from 'ioredis';

/**
 * ioredis writes a command of string arguments as one string it builds by concatenation: for each
 * argument `"$" + length + "\r\n" + arg + "\r\n"` appended to the rest, four or five intermediate
 * strings an argument, then the whole flattened again when the socket writes it. The edge's quota
 * scripts have twenty-odd arguments (their keys and limits), and the bench measured 4 to 7 KB
 * allocated per request in that one method (Command.toWritable), the largest site of the edge's
 * heap. Here the same RESP bytes are written once into one Buffer (from Node's pool when under
 * 4 KB): the heap keeps a Buffer view a command instead.
 */

const CR = 13;
const LF = 10;
const DOLLAR = 36;
const STAR = 42;

/** Decimal digits of a non-negative integer, without making its string. */
function digits(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = Math.floor(n / 10);
    d++;
  }
  return d;
}

/** Writes `n` in decimal at `at`; returns the offset after it. */
function writeNumber(buf: Buffer, at: number, n: number): number {
  const end = at + digits(n);
  for (let i = end - 1; i >= at; i--) {
    buf[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
  return end;
}

/** `$<bytes>\r\n<value>\r\n` at `at`, the value `bytes` long in UTF-8; returns the offset after it. */
function writeBulk(buf: Buffer, at: number, value: string, bytes: number): number {
  buf[at] = DOLLAR;
  let o = writeNumber(buf, at + 1, bytes);
  buf[o++] = CR;
  buf[o++] = LF;
  o += buf.write(value, o, bytes, 'utf8');
  buf[o++] = CR;
  buf[o++] = LF;
  return o;
}

const bulkLength = (bytes: number): number => 1 + digits(bytes) + 2 + bytes + 2;

/** encodeCommand's scratch: the byte lengths of the arguments of the command it is encoding. */
const lengths: number[] = [];

/**
 * The RESP encoding of a command (an array of bulk strings: its name, then its arguments), the
 * same bytes as ioredis's own, as one Buffer.
 */
export function encodeCommand(name: string, args: readonly string[]): Buffer {
  const nameBytes = Buffer.byteLength(name);
  let size = 1 + digits(args.length + 1) + 2 + bulkLength(nameBytes);
  // Each argument's byte length, measured once for the size and kept for the writes, in one array
  // for every call (encoding is synchronous: no two calls share it at once).
  for (let i = 0; i < args.length; i++) {
    const bytes = Buffer.byteLength(args[i]!);
    lengths[i] = bytes;
    size += bulkLength(bytes);
  }
  const buf = Buffer.allocUnsafe(size);
  buf[0] = STAR;
  let o = writeNumber(buf, 1, args.length + 1);
  buf[o++] = CR;
  buf[o++] = LF;
  o = writeBulk(buf, o, name, nameBytes);
  for (let i = 0; i < args.length; i++) o = writeBulk(buf, o, args[i]!, lengths[i]!);
  return buf;
}

/** What toWritable reads of a command: set by ioredis's constructor (stringifyArguments). */
interface CommandInternals {
  readonly name: string;
  readonly args: readonly unknown[];
  readonly bufferMode?: boolean;
}

const original = Command.prototype.toWritable;
let installed = false;

/**
 * From now on every ioredis command of this process whose arguments are all strings is written as
 * encodeCommand's Buffer; a command with a Buffer argument (BullMQ's packed job data) keeps
 * ioredis's own encoding. Script commands (EVALSHA, EVAL on a fresh connection) go through it too:
 * they swap their name and first argument, then call this. Idempotent.
 */
export function installCompactCommands(): void {
  if (installed) return;
  installed = true;
  Command.prototype.toWritable = function toWritable(this: Command, socket: object): string | Buffer {
    const { name, args, bufferMode } = this as unknown as CommandInternals;
    if (bufferMode) return original.call(this, socket);
    for (const arg of args) if (typeof arg !== 'string') return original.call(this, socket);
    return encodeCommand(name, args as readonly string[]);
  };
}

/** ioredis's own encoding of a command, for the tests that hold encodeCommand to it. */
export const ioredisEncoding = (command: Command, socket: object = {}): string | Buffer =>
  original.call(command, socket);
