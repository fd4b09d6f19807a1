import { type ChatChunk, type ChatDelta, type ChatFinishReason } from '../src/chat.js';
import { streamedObject } from '../src/translation-errors.js';
import { type SseEvent, type StreamTransform } from '../src/translation.js';
import { finishReasonOf } from './mapping.js';
import { hubUsageOf } from './usage.js';
import { isObject, upstreamError, type Json } from './wire.js';

type Block =
  | { readonly kind: 'text' }
  | { readonly kind: 'tool'; readonly call: number }
  | { readonly kind: 'thinking'; text: string; signature: string };

/**
 * ConverseStream events (decoded from the event stream by `converseDecoder`: each one
 * `{"<eventType>": payload}`) -> hub chunks. `messageStart` gives the role chunk, deltas go out
 * as they come, `messageStop` the finish reason, and `metadata` (which follows it) the usage
 * chunk. Text and reasoning blocks have no start event: their first delta opens them.
 *
 * Failures throw `GatewayError('upstream_error')`: an exception event (its message kept), an
 * event that is not JSON, or a stream that ends before its metadata.
 */
export function converseStreamToHub(): StreamTransform<SseEvent, ChatChunk> {
  let done = false;
  let toolCalls = 0;
  const blocks = new Map<number, Block>();

  const chunk = (delta: ChatDelta, finish: ChatFinishReason | null = null): ChatChunk => ({
    id: '',
    object: 'chat.completion.chunk',
    created: 0,
    model: '',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  const onStart = (index: number, start: Json): ChatChunk[] => {
    if (!isObject(start.toolUse)) return [];
    const call = toolCalls++;
    blocks.set(index, { kind: 'tool', call });
    const fn = { name: String(start.toolUse.name), arguments: '' };
    return [
      chunk({
        tool_calls: [{ index: call, id: String(start.toolUse.toolUseId), type: 'function', function: fn }],
      }),
    ];
  };

  const onDelta = (index: number, delta: Json): ChatChunk[] => {
    if (typeof delta.text === 'string') {
      if (!blocks.has(index)) blocks.set(index, { kind: 'text' });
      return delta.text === '' ? [] : [chunk({ content: delta.text })];
    }
    if (isObject(delta.toolUse)) {
      const block = blocks.get(index);
      if (block?.kind !== 'tool')
        throw upstreamError(`Bedrock streamed tool input for block ${index}, which is no tool call.`);
      const input = String(delta.toolUse.input ?? '');
      return input === ''
        ? []
        : [chunk({ tool_calls: [{ index: block.call, function: { arguments: input } }] })];
    }
    if (isObject(delta.reasoningContent)) return onReasoning(index, delta.reasoningContent);
    return [];
  };

  const onReasoning = (index: number, r: Json): ChatChunk[] => {
    if (typeof r.redactedContent === 'string') {
      return [chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: r.redactedContent }] })];
    }
    let block = blocks.get(index);
    if (block === undefined) {
      block = { kind: 'thinking', text: '', signature: '' };
      blocks.set(index, block);
    }
    if (block.kind !== 'thinking') return [];
    if (typeof r.signature === 'string') block.signature = r.signature;
    if (typeof r.text !== 'string' || r.text === '') return [];
    block.text += r.text;
    return [chunk({ reasoning_content: r.text })];
  };

  const onStop = (index: number): ChatChunk[] => {
    const block = blocks.get(index);
    if (block?.kind !== 'thinking') return [];
    // The signature closes a thinking block; the whole block rides along for the next turn.
    return [
      chunk({ thinking_blocks: [{ type: 'thinking', thinking: block.text, signature: block.signature }] }),
    ];
  };

  return {
    push(event: SseEvent): ChatChunk[] {
      if (done) return [];
      const data = parse(event.data);
      const [type, payload] = Object.entries(data)[0] ?? ['', null];
      const p = isObject(payload) ? payload : {};
      switch (type) {
        case 'messageStart':
          return [chunk({ role: 'assistant', content: '' })];
        case 'contentBlockStart':
          return onStart(Number(p.contentBlockIndex), isObject(p.start) ? p.start : {});
        case 'contentBlockDelta':
          return onDelta(Number(p.contentBlockIndex), isObject(p.delta) ? p.delta : {});
        case 'contentBlockStop':
          return onStop(Number(p.contentBlockIndex));
        case 'messageStop': {
          const finish = finishReasonOf(p.stopReason);
          return finish ? [chunk({}, finish)] : [];
        }
        case 'metadata':
          done = true;
          return [
            {
              id: '',
              object: 'chat.completion.chunk',
              created: 0,
              model: '',
              choices: [],
              usage: hubUsageOf(p.usage),
            },
          ];
        default:
          if (type.endsWith('Exception'))
            throw upstreamError(
              typeof p.message === 'string' ? p.message : `Bedrock stream error (${type}).`,
            );
          return [];
      }
    },
    end(): ChatChunk[] {
      if (!done) throw upstreamError('The Bedrock stream ended before its metadata event.');
      return [];
    },
  };
}

function parse(data: string): Json {
  return streamedObject(data, 'Bedrock');
}
