import { describe, expect, it } from '@jest/globals';
import { type StreamDecoder } from '#libs/providers';
import { decodedStream } from './decoded-stream.js';

/** A decoder of a toy framing: one length byte, then that many bytes of SSE text. */
function lengthPrefixed(): StreamDecoder {
  let pending = Buffer.alloc(0);
  return {
    push(bytes) {
      pending = Buffer.concat([pending, bytes]);
      let out = '';
      while (pending.length > 0 && pending.length >= 1 + pending[0]!) {
        out += pending.subarray(1, 1 + pending[0]!).toString('utf8');
        pending = pending.subarray(1 + pending[0]!);
      }
      return out;
    },
    end() {
      if (pending.length > 0) throw new Error('ended inside a frame');
    },
  };
}

const frame = (text: string): Buffer => Buffer.concat([Buffer.from([text.length]), Buffer.from(text)]);

async function* reads(...chunks: Buffer[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const chunk of source) out.push(Buffer.from(chunk).toString('utf8'));
  return out;
}

describe('decodedStream', () => {
  it('yields the events of the frames each read completed, and nothing for a read inside a frame', async () => {
    const a = frame('data: 1\n\n');
    const b = frame('data: 2\n\n');
    const out = await collect(
      decodedStream(
        reads(a.subarray(0, 4), Buffer.concat([a.subarray(4), b.subarray(0, 2)]), b.subarray(2)),
        lengthPrefixed(),
      ),
    );
    expect(out).toEqual(['data: 1\n\n', 'data: 2\n\n']);
  });

  it('throws when the upstream ends inside a frame', async () => {
    const a = frame('data: 1\n\n');
    await expect(collect(decodedStream(reads(a.subarray(0, 3)), lengthPrefixed()))).rejects.toThrow(
      'inside a frame',
    );
  });

  it('stops reading the upstream when the consumer stops', async () => {
    let returned = false;
    const upstream: AsyncIterable<Uint8Array> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: false, value: frame('data: x\n\n') }),
        return: () => {
          returned = true;
          return Promise.resolve({ done: true, value: undefined });
        },
      }),
    };
    for await (const _ of decodedStream(upstream, lengthPrefixed())) break;
    expect(returned).toBe(true);
  });
});
