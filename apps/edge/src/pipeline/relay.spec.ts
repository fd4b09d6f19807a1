import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from '@jest/globals';
import { GatewayError } from '#libs/protocol';
import { type StreamMeter } from '#libs/providers';
import { relay, type RelayHooks } from './relay.js';
import { type OutputSampler } from './usage-estimate.js';

const ev = (data: string): string => `data: ${data}\n\n`;

/** The raw response: what was written, each write apart; `full` makes write() ask for a drain. */
class FakeClient extends EventEmitter {
  writes: string[] = [];
  ended = false;
  destroyed = false;
  writableFinished = false;
  full = false;

  write(text: string): boolean {
    this.writes.push(text);
    return !this.full;
  }

  end(): void {
    this.ended = true;
    this.writableFinished = true;
    this.emit('close');
  }

  destroy(): void {
    this.destroyed = true;
  }

  hangUp(): void {
    this.emit('close');
  }
}

/** A meter that completes on [DONE] and hides `hidden`; hooks that pass events through. */
function setup(over: Partial<RelayHooks> = {}) {
  const calls: string[] = [];
  let completed = false;
  const meter = {
    see(data: string) {
      if (data === '[DONE]') completed = true;
      return data !== 'hidden';
    },
    get completed() {
      return completed;
    },
  } as unknown as StreamMeter;
  const sampled: string[] = [];
  const sampler = { push: (d: string) => sampled.push(d) } as unknown as OutputSampler;
  const hooks: RelayHooks = {
    event: (raw) => raw,
    end: () => 'END',
    fail: (message) => `FAIL ${message}`,
    ...over,
  };
  const owner = {
    firstByte: () => calls.push('firstByte'),
    relayEnded: (completed: boolean) => calls.push(`relayEnded ${completed}`),
    clientGone: () => calls.push('clientGone'),
  };
  const client = new FakeClient();
  const run = (upstream: AsyncIterable<Uint8Array>, markerWritten: Promise<void> = Promise.resolve()) =>
    relay(upstream, client, { meter, sampler, hooks, owner, markerWritten });
  return { calls, sampled, client, run };
}

/** An upstream made of async generator reads (the read-ahead and decoded streams), counting pulls. */
function generatorOf(pieces: readonly string[], opts: { hang?: boolean } = {}) {
  const state = { pulls: 0, finished: false };
  async function* gen(): AsyncGenerator<Uint8Array> {
    try {
      for (const piece of pieces) {
        state.pulls++;
        yield Buffer.from(piece);
      }
      if (opts.hang === true) await new Promise(() => undefined);
    } finally {
      state.finished = true;
    }
  }
  return { stream: gen(), state };
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await turn();
};

describe('relay', () => {
  it('writes each upstream read as one write, then the end hook, then ends once (a Readable body)', async () => {
    const h = setup();
    const body = new PassThrough();
    h.run(body);
    await settle();
    body.write(ev('a') + ev('b'));
    await settle();
    body.write(ev('hidden') + ev('c'));
    await settle();
    body.end(ev('[DONE]'));
    await settle();
    expect(h.client.writes).toEqual([ev('a') + ev('b'), ev('c'), ev('[DONE]'), 'END']);
    expect(h.client.ended).toBe(true);
    expect(h.sampled).toEqual(['a', 'b', 'hidden', 'c', '[DONE]']);
    expect(h.calls).toEqual(['firstByte', 'firstByte', 'firstByte', 'relayEnded true']);
  });

  it('reads an async iterable upstream the same way', async () => {
    const h = setup();
    const { stream, state } = generatorOf([ev('a'), ': ping\n\n', ev('[DONE]')]);
    h.run(stream);
    await settle();
    expect(h.client.writes).toEqual([ev('a'), ': ping\n\n', ev('[DONE]'), 'END']);
    expect(h.calls).toEqual(['firstByte', 'firstByte', 'firstByte', 'relayEnded true']);
    expect(state.finished).toBe(true);
  });

  it('keeps events split across reads for the read that completes them', async () => {
    const h = setup();
    const { stream } = generatorOf(['data: a', 'b\n', '\n', ev('[DONE]')]);
    h.run(stream);
    await settle();
    expect(h.client.writes).toEqual([ev('ab'), ev('[DONE]'), 'END']);
  });

  it('reads nothing and writes nothing before the start marker left', async () => {
    const h = setup();
    let written!: () => void;
    const marker = new Promise<void>((resolve) => (written = resolve));
    const { stream, state } = generatorOf([ev('a'), ev('[DONE]')]);
    h.run(stream, marker);
    await settle();
    expect(state.pulls).toBe(0);
    expect(h.client.writes).toEqual([]);
    written();
    await settle();
    expect(h.client.writes).toEqual([ev('a'), ev('[DONE]'), 'END']);
  });

  it('reads a Readable upstream no further while the client socket is full, until it drains', async () => {
    const h = setup();
    const body = new PassThrough();
    h.run(body);
    await settle();
    h.client.full = true;
    body.write(ev('a'));
    await settle();
    body.write(ev('b'));
    body.write(ev('c'));
    await settle();
    expect(h.client.writes).toEqual([ev('a')]);
    expect(body.readableLength).toBe(2 * ev('b').length);
    h.client.full = false;
    h.client.emit('drain');
    await settle();
    // What arrived meanwhile is one read, so one write, as the generator relay's reads were.
    expect(h.client.writes).toEqual([ev('a'), ev('b') + ev('c')]);
    body.write(ev('d'));
    await settle();
    expect(h.client.writes).toEqual([ev('a'), ev('b') + ev('c'), ev('d')]);
  });

  it('pulls an iterable upstream no further while the client socket is full', async () => {
    const h = setup();
    const { stream, state } = generatorOf([ev('a'), ev('b'), ev('[DONE]')]);
    h.client.full = true;
    h.run(stream);
    await settle();
    expect(state.pulls).toBe(1);
    expect(h.client.writes).toEqual([ev('a')]);
    h.client.emit('drain');
    await settle();
    expect(state.pulls).toBe(2);
    h.client.full = false;
    h.client.emit('drain');
    await settle();
    expect(h.client.writes).toEqual([ev('a'), ev('b'), ev('[DONE]'), 'END']);
  });

  it('a client that hangs up: the owner told, the upstream destroyed, the relay ended once, nothing more written', async () => {
    const h = setup();
    const body = new PassThrough();
    h.run(body);
    await settle();
    body.write(ev('a'));
    await settle();
    h.client.hangUp();
    expect(h.calls).toEqual(['firstByte', 'clientGone', 'relayEnded false']);
    await settle();
    expect(body.destroyed).toBe(true);
    expect(h.client.writes).toEqual([ev('a')]);
    expect(h.client.ended).toBe(false);
  });

  it('stops an iterable upstream when the client hangs up', async () => {
    const h = setup();
    const { stream, state } = generatorOf([ev('a')], { hang: true });
    h.run(stream);
    await settle();
    h.client.hangUp();
    expect(h.calls).toEqual(['firstByte', 'clientGone', 'relayEnded false']);
    expect(state.pulls).toBe(1);
  });

  it('a client gone before the marker left: told at once, the relay ends only after the marker', async () => {
    const h = setup();
    let written!: () => void;
    const marker = new Promise<void>((resolve) => (written = resolve));
    const body = new PassThrough();
    h.run(body, marker);
    h.client.hangUp();
    await settle();
    expect(h.calls).toEqual(['clientGone']);
    written();
    await settle();
    expect(h.calls).toEqual(['clientGone', 'relayEnded false']);
    expect(body.destroyed).toBe(true);
    expect(h.client.writes).toEqual([]);
  });

  it('a marker that fails: the broken ending, never a read; nothing at all for a client already gone', async () => {
    for (const gone of [false, true]) {
      const h = setup();
      const body = new PassThrough();
      h.run(body, Promise.reject(new Error('redis down')));
      if (gone) h.client.hangUp();
      await settle();
      expect(h.client.writes).toEqual(gone ? [] : ['FAIL The upstream stream failed before it completed.']);
      expect(h.calls).toEqual(gone ? ['clientGone', 'relayEnded false'] : ['relayEnded false']);
      expect(body.destroyed).toBe(true);
    }
  });

  it('an upstream that breaks mid-stream: the fail event, the end, relayEnded(false) once', async () => {
    const h = setup();
    const body = new PassThrough();
    h.run(body);
    await settle();
    body.write(ev('a'));
    await settle();
    body.destroy(new Error('socket hang up'));
    await settle();
    expect(h.client.writes).toEqual([ev('a'), 'FAIL The upstream stream failed before it completed.']);
    expect(h.client.ended).toBe(true);
    expect(h.calls).toEqual(['firstByte', 'relayEnded false']);
  });

  it('an upstream closed without an error before its end is broken too', async () => {
    const h = setup();
    const body = new PassThrough();
    h.run(body);
    await settle();
    body.destroy();
    await settle();
    expect(h.client.writes).toEqual(['FAIL The upstream stream failed before it completed.']);
    expect(h.calls).toEqual(['relayEnded false']);
  });

  it('an upstream that ends without completing its stream: the fail event, not the end hook', async () => {
    const h = setup();
    const { stream } = generatorOf([ev('a')]);
    h.run(stream);
    await settle();
    expect(h.client.writes).toEqual([ev('a'), 'FAIL The upstream stream failed before it completed.']);
    expect(h.calls).toEqual(['firstByte', 'relayEnded false']);
  });

  it('a translator that throws: the events before still go out, then the fail event; the upstream stops', async () => {
    const h = setup({
      event: (raw, data) => {
        if (data === 'bad') throw new TypeError('cannot translate');
        return raw;
      },
    });
    const body = new PassThrough();
    h.run(body);
    await settle();
    body.write(ev('a') + ev('bad') + ev('c'));
    await settle();
    expect(h.client.writes).toEqual([ev('a'), 'FAIL The upstream stream failed before it completed.']);
    expect(h.calls).toEqual(['firstByte', 'relayEnded false']);
    expect(body.destroyed).toBe(true);
  });

  it('a translator’s GatewayError carries its own message into the fail event', async () => {
    const h = setup({
      event: () => {
        throw new GatewayError('upstream_error', 'Overloaded');
      },
    });
    const { stream, state } = generatorOf([ev('x'), ev('y')], { hang: true });
    h.run(stream);
    await settle();
    expect(h.client.writes).toEqual(['FAIL Overloaded']);
    expect(h.calls).toEqual(['relayEnded false']);
    expect(state.finished).toBe(true);
  });

  it('an end hook that throws ends as broken', async () => {
    const h = setup({
      end: () => {
        throw new TypeError('no end');
      },
    });
    const { stream } = generatorOf([ev('[DONE]')]);
    h.run(stream);
    await settle();
    expect(h.client.writes).toEqual([ev('[DONE]'), 'FAIL The upstream stream failed before it completed.']);
    expect(h.calls).toEqual(['firstByte', 'relayEnded false']);
  });

  it('a fail hook that throws twice: the response destroyed, the relay still ended once', async () => {
    const h = setup({
      fail: () => {
        throw new TypeError('no fail');
      },
    });
    const { stream } = generatorOf([ev('a')]);
    h.run(stream);
    await settle();
    expect(h.client.destroyed).toBe(true);
    expect(h.client.ended).toBe(false);
    expect(h.calls).toEqual(['firstByte', 'relayEnded false']);
  });

  it('a hang-up after the end changes nothing for the relay: relayEnded stays once', async () => {
    const h = setup();
    const { stream } = generatorOf([ev('[DONE]')]);
    h.run(stream);
    await settle();
    h.client.writableFinished = false; // the last bytes were still on their way
    h.client.hangUp();
    expect(h.calls).toEqual(['firstByte', 'relayEnded true', 'clientGone']);
  });

  it('writes no empty string: events that translate to nothing are not writes', async () => {
    const h = setup({ event: (raw, data) => (data === 'skip' ? '' : raw), end: () => '' });
    const { stream } = generatorOf([ev('skip'), ev('[DONE]')]);
    h.run(stream);
    await settle();
    expect(h.client.writes).toEqual([ev('[DONE]')]);
    expect(h.calls).toEqual(['firstByte', 'relayEnded true']);
  });
});
