import { describe, expect, it } from '@jest/globals';
import { Command } from 'ioredis';
import { encodeCommand, installCompactCommands, ioredisEncoding } from './compact-commands.js';

const bytes = (w: string | Buffer): Buffer => (typeof w === 'string' ? Buffer.from(w, 'utf8') : w);

describe('encodeCommand', () => {
  it('writes the RESP array of bulk strings ioredis writes', () => {
    expect(encodeCommand('get', ['k']).toString('latin1')).toBe('*2\r\n$3\r\nget\r\n$1\r\nk\r\n');
    expect(encodeCommand('ping', []).toString('latin1')).toBe('*1\r\n$4\r\nping\r\n');
  });

  it('counts bytes, not characters, and keeps empty arguments', () => {
    expect(encodeCommand('set', ['é€😀', '']).toString('utf8')).toBe(
      '*3\r\n$3\r\nset\r\n$9\r\né€😀\r\n$0\r\n\r\n',
    );
  });

  it("is byte for byte ioredis's own encoding, for commands of every shape", () => {
    const long = 'x'.repeat(70_000);
    const cases: Array<[string, unknown[]]> = [
      [
        'evalsha',
        [
          '0123456789abcdef0123456789abcdef01234567',
          6,
          '{u:1}:quota:balance',
          '{u:1}:rpm:29',
          7,
          0,
          -1,
          1.5,
          '',
        ],
      ],
      ['eval', [`return redis.call('get', KEYS[1]) -- ${long}`, 1, 'k']],
      ['set', ['ключ', 'значение', 'EX', 120]],
      ['mget', Array.from({ length: 12 }, (_, i) => `key:${i}:${'é'.repeat(i)}`)],
      ['hset', ['h', 'n', Number.MAX_SAFE_INTEGER + 2, 'null', null, 'undef', undefined]],
      ['ping', []],
    ];
    for (const [name, args] of cases) {
      const command = new Command(name, args as string[]);
      const { name: n, args: a } = command as unknown as { name: string; args: string[] };
      expect(encodeCommand(n, a).equals(bytes(ioredisEncoding(command)))).toBe(true);
    }
  });

  it('takes the lengths of a long command after a short one, and a short one after a long one', () => {
    const many = Array.from({ length: 40 }, (_, i) => `a${i}`);
    for (const args of [['x'], many, ['y', 'z'], many.slice(0, 3)])
      expect(encodeCommand('del', args).equals(bytes(ioredisEncoding(new Command('del', args))))).toBe(true);
  });
});

describe('installCompactCommands', () => {
  it("makes a string command write encodeCommand's bytes, and leaves one with a Buffer argument to ioredis", () => {
    installCompactCommands();
    installCompactCommands(); // idempotent: still one layer
    const strings = new Command('evalsha', ['sha', 1, 'k', 'v']);
    const written = strings.toWritable({});
    expect(Buffer.isBuffer(written)).toBe(true);
    expect((written as Buffer).equals(bytes(ioredisEncoding(strings)))).toBe(true);
    const packed = new Command('evalsha', ['sha', 1, 'k', Buffer.from([0x93, 0x01])]);
    expect(packed.toWritable({})).toEqual(ioredisEncoding(packed));
  });
});
