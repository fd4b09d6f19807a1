import { type ChatChunk, type ChatDelta, type ChatFinishReason } from '../src/chat.js';
import { streamedObject } from '../src/translation-errors.js';
import { type SseEvent, type StreamTransform } from '../src/translation.js';
import { finishReasonOf } from './mapping.js';
import { hubUsageOf } from './usage.js';
import { isSearchResult, searchCallOf } from './web-search.js';
import { isObject, upstreamError, type Json } from './wire.js';

type Block =
  | { readonly kind: 'text' | 'redacted' | 'other' }
  | { readonly kind: 'tool'; readonly call: number }
  | { readonly kind: 'search'; readonly block: Json; input: string }
  | { readonly kind: 'thinking'; text: string; signature: string };

/**
 * Anthropic events -> hub chunks, as they arrive. The role chunk goes out on `message_start`,
 * each delta as its own chunk, the finish reason on `message_delta`, and on `message_stop` a
 * final `choices: []` chunk with the exact usage (input counts from `message_start`, overwritten
 * by any that `message_delta` repeats; output count from `message_delta`).
 *
 * Failures throw `GatewayError('upstream_error')` from `push`/`end`: an `error` event (its
 * message kept), an unparseable event, or a stream that ends without `message_stop`. The edge
 * then ends the client stream with its format's `fail()` event.
 */
export function anthropicStreamToHub(): StreamTransform<SseEvent, ChatChunk> {
  let id = '';
  let model = '';
  let usage: Json = {};
  let stopped = false;
  let toolCalls = 0;
  const blocks = new Map<number, Block>();

  const chunk = (delta: ChatDelta, finish: ChatFinishReason | null = null): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

  const onStart = (data: Json): ChatChunk[] => {
    const message = isObject(data.message) ? data.message : {};
    id = String(message.id ?? '');
    model = String(message.model ?? '');
    usage = isObject(message.usage) ? { ...message.usage } : {};
    return [chunk({ role: 'assistant', content: '' })];
  };

  const onBlockStart = (index: number, block: Json): ChatChunk[] => {
    switch (block.type) {
      case 'text':
        blocks.set(index, { kind: 'text' });
        return typeof block.text === 'string' && block.text !== '' ? [chunk({ content: block.text })] : [];
      case 'tool_use': {
        const call = toolCalls++;
        blocks.set(index, { kind: 'tool', call });
        const input =
          isObject(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
        const fn = { name: String(block.name), arguments: input };
        return [
          chunk({ tool_calls: [{ index: call, id: String(block.id), type: 'function', function: fn }] }),
        ];
      }
      case 'thinking': {
        const text = typeof block.thinking === 'string' ? block.thinking : '';
        blocks.set(index, { kind: 'thinking', text, signature: String(block.signature ?? '') });
        return text !== '' ? [chunk({ reasoning_content: text })] : [];
      }
      case 'redacted_thinking':
        blocks.set(index, { kind: 'redacted' });
        return [chunk({ thinking_blocks: [{ type: 'redacted_thinking', data: String(block.data ?? '') }] })];
      case 'server_tool_use':
        // The query streams as input_json_delta; the call goes out whole at the block's stop.
        blocks.set(index, { kind: 'search', block, input: '' });
        return [];
      default:
        if (isSearchResult(block.type)) {
          blocks.set(index, { kind: 'other' });
          return [];
        }
        throw upstreamError(
          `Anthropic streamed a ${String(block.type)} block, which has no chat equivalent.`,
        );
    }
  };

  const onDelta = (index: number, delta: Json): ChatChunk[] => {
    const block = blocks.get(index);
    if (!block) throw upstreamError(`Anthropic streamed a delta for unknown block ${index}.`);
    switch (delta.type) {
      case 'text_delta':
        return delta.text === '' ? [] : [chunk({ content: String(delta.text) })];
      case 'input_json_delta':
        if (block.kind === 'search') block.input += String(delta.partial_json ?? '');
        if (block.kind !== 'tool' || delta.partial_json === '') return [];
        return [
          chunk({ tool_calls: [{ index: block.call, function: { arguments: String(delta.partial_json) } }] }),
        ];
      case 'thinking_delta':
        if (block.kind !== 'thinking' || delta.thinking === '') return [];
        block.text += String(delta.thinking);
        return [chunk({ reasoning_content: String(delta.thinking) })];
      case 'signature_delta':
        // One signature per block; the SDK also replaces rather than appends.
        if (block.kind === 'thinking') block.signature = String(delta.signature ?? '');
        return [];
      default:
        // citations_delta annotates text already sent; it only follows documents the hub never sends.
        return [];
    }
  };

  const onBlockStop = (index: number): ChatChunk[] => {
    const block = blocks.get(index);
    if (block?.kind === 'search') {
      const input = block.input === '' ? block.block.input : parseInput(block.input);
      return [chunk({ web_search_calls: [searchCallOf(block.block, input)] })];
    }
    if (block?.kind !== 'thinking') return [];
    // The signature closes a thinking block; the whole block rides along for the next turn.
    return [
      chunk({ thinking_blocks: [{ type: 'thinking', thinking: block.text, signature: block.signature }] }),
    ];
  };

  const onMessageDelta = (data: Json): ChatChunk[] => {
    if (isObject(data.usage)) {
      for (const [key, value] of Object.entries(data.usage))
        if (value !== null && value !== undefined) usage[key] = value;
    }
    const stop = isObject(data.delta) ? data.delta.stop_reason : null;
    const finish = finishReasonOf(stop);
    return finish ? [chunk({}, finish)] : [];
  };

  const usageChunk = (): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [],
    usage: hubUsageOf(usage),
  });

  return {
    push(event: SseEvent): ChatChunk[] {
      if (stopped) return [];
      const data = parse(event.data);
      const type = event.event ?? data.type;
      switch (type) {
        case 'message_start':
          return onStart(data);
        case 'content_block_start':
          return onBlockStart(Number(data.index), isObject(data.content_block) ? data.content_block : {});
        case 'content_block_delta':
          return onDelta(Number(data.index), isObject(data.delta) ? data.delta : {});
        case 'content_block_stop':
          return onBlockStop(Number(data.index));
        case 'message_delta':
          return onMessageDelta(data);
        case 'message_stop':
          stopped = true;
          return [usageChunk()];
        case 'error': {
          const error = isObject(data.error) ? data.error : {};
          throw upstreamError(typeof error.message === 'string' ? error.message : 'Anthropic stream error.');
        }
        default:
          // `ping`, and event types Anthropic may add (its versioning policy says to ignore them).
          return [];
      }
    },
    end(): ChatChunk[] {
      if (!stopped) throw upstreamError('The Anthropic stream ended before message_stop.');
      return [];
    },
  };
}

function parseInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    throw upstreamError('Anthropic streamed a server tool input that is not JSON.');
  }
}

function parse(data: string): Json {
  return streamedObject(data, 'Anthropic');
}
