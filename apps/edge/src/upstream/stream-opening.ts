import { sseData, SseEventSplitter } from '#libs/protocol';
import { type StreamOpening } from '#libs/providers';

/** A stream whose opening was read ahead, before any of it reached the client. */
export interface OpenedStream {
  /** `too_long`: the vendor refused the request in-band as too long for the model's window. */
  readonly verdict: Exclude<StreamOpening, 'wait'>;
  /** The upstream's bytes from the first: the opening read ahead, then the rest as it comes. */
  readonly stream: AsyncIterable<Uint8Array>;
}

/**
 * Reads an SSE stream's opening (the events `opening` says nothing is generated in yet) before
 * anything goes to the client, so an in-band refusal there can still fail over or fall back: no
 * byte of it reached the client. The client waits for the first generated event anyway, so this
 * takes nothing from its time to first token. A read that throws (a broken stream) throws here.
 */
export async function readOpening(
  body: AsyncIterable<Uint8Array>,
  opening: (data: string) => StreamOpening,
): Promise<OpenedStream> {
  const it = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  const splitter = new SseEventSplitter();
  let verdict: StreamOpening = 'wait';
  while (verdict === 'wait') {
    const next = await it.next();
    // Ended in its opening: the relay tells the client what such a stream is.
    if (next.done === true) break;
    head.push(next.value);
    for (const event of splitter.push(next.value)) {
      const data = sseData(event);
      if (data !== null) verdict = opening(data);
      if (verdict !== 'wait') break;
    }
  }
  if (verdict !== 'too_long') return { verdict: 'go', stream: replay(head, it) };
  // The refusal ends the stream: read to its end, so a refused stream left unrelayed holds nothing open.
  for (let next = await it.next(); next.done !== true; next = await it.next()) head.push(next.value);
  return { verdict, stream: replay(head, it) };
}

/** The chunks read ahead, then the rest of the iterator; stopping it stops the upstream. */
async function* replay(
  head: readonly Uint8Array[],
  it: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  try {
    yield* head;
    for (;;) {
      const next = await it.next();
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    await it.return?.();
  }
}
