import { type StreamDecoder } from '#libs/providers';

/**
 * An upstream stream in a framing of its own (a binary event stream), as the SSE bytes the relay
 * reads: each read becomes the events of the frames it completed, so deltas are not held back
 * longer than their frame. A corrupt frame, or an end inside one, throws: the relay's broken
 * stream. Stopping the consumer stops the upstream (the loop's iterator is returned).
 */
export async function* decodedStream(
  upstream: AsyncIterable<Uint8Array>,
  decoder: StreamDecoder,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of upstream) {
    const text = decoder.push(chunk);
    if (text.length > 0) yield Buffer.from(text);
  }
  decoder.end();
}
