import { describe, expect, it } from '@jest/globals';
import { type StreamOpening } from '#libs/providers';
import { readOpening } from './stream-opening.js';

/** Opening events are `wait`, a payload `refuse` is a too-long refusal, any other is under way. */
const opening = (data: string): StreamOpening =>
  data === 'open' ? 'wait' : data === 'refuse' ? 'too_long' : 'go';

/** An upstream body of these reads, counting how far it was read and whether it was stopped. */
function upstream(reads: readonly string[]) {
  const state = { read: 0, stopped: false };
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for (const r of reads) {
        state.read++;
        yield Buffer.from(r);
      }
    } finally {
      state.stopped = true;
    }
  }
  return { body: body(), state };
}

async function text(stream: AsyncIterable<Uint8Array>): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += Buffer.from(chunk).toString();
  return out;
}

describe('readOpening', () => {
  it('reads until the first event under way, then relays everything from the first byte', async () => {
    const up = upstream(['data: open\n\ndata: op', 'en\n\n', 'data: delta\n\n', 'data: more\n\n']);
    const opened = await readOpening(up.body, opening);
    expect(opened.verdict).toBe('go');
    expect(up.state.read).toBe(3);
    expect(await text(opened.stream)).toBe('data: open\n\ndata: open\n\ndata: delta\n\ndata: more\n\n');
  });

  it('takes an in-band refusal, read to the end of its stream', async () => {
    const up = upstream(['data: open\n\n', 'data: refuse\n\n', 'event: end\n\n']);
    const opened = await readOpening(up.body, opening);
    expect(opened.verdict).toBe('too_long');
    expect(up.state).toEqual({ read: 3, stopped: true });
    expect(await text(opened.stream)).toBe('data: open\n\ndata: refuse\n\nevent: end\n\n');
  });

  it('a stream that ends in its opening is under way (the relay says what it is)', async () => {
    const opened = await readOpening(upstream(['data: open\n\n']).body, opening);
    expect(opened.verdict).toBe('go');
    expect(await text(opened.stream)).toBe('data: open\n\n');
  });

  it('stopping the relayed stream stops the upstream', async () => {
    const up = upstream(['data: go\n\n', 'data: a\n\n', 'data: b\n\n', 'data: c\n\n']);
    const opened = await readOpening(up.body, opening);
    for await (const _ of opened.stream) break;
    expect(up.state).toEqual({ read: 1, stopped: true });
  });

  it('throws what a broken read throws', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('data: open\n\n');
      throw new Error('socket hang up');
    }
    await expect(readOpening(broken(), opening)).rejects.toThrow('socket hang up');
  });
});
