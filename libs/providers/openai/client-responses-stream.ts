import {
  type ChatChunk,
  type ChatDelta,
  type ChatFinishReason,
  type ChatUsage,
  type ThinkingBlock,
} from '../src/chat.js';
import { type ClientContext, type ClientStream, type SseFrame } from '../src/translation.js';
import { type JsonObject } from '../src/types.js';
import { upstreamError } from './fields.js';
import { clientToolName, namespacedToolNames } from './tool-namespaces.js';
import {
  functionCallItem,
  itemId,
  messageItem,
  outputText,
  reasoningItem,
  responseShell,
  responsesUsage,
  terminalStatus,
  webSearchCallItem,
} from './client-responses-response.js';

/** The output item being streamed; one at a time, closed before the next opens (as OpenAI does). */
type OpenItem =
  | {
      kind: 'reasoning';
      index: number;
      id: string;
      summary: string;
      summaryOpen: boolean;
      blocks: ThinkingBlock[];
    }
  | {
      kind: 'message';
      index: number;
      id: string;
      parts: JsonObject[];
      part: { type: 'text' | 'refusal'; text: string } | null;
    }
  | {
      kind: 'function_call';
      index: number;
      id: string;
      call: number;
      callId: string;
      name: string;
      args: string;
    };

/**
 * Hub chunks -> the Responses API event sequence: `response.created`, `response.in_progress`,
 * each output item from `output_item.added` to `output_item.done` with its deltas, then
 * `response.completed` or `response.incomplete` carrying the whole response and usage.
 */
export function responsesStream(ctx: ClientContext): ClientStream {
  let sequence = 0;
  let started = false;
  let open: OpenItem | null = null;
  const output: JsonObject[] = [];
  const seenCalls = new Set<number>();
  const toolNames = namespacedToolNames(ctx.request);
  let finish: ChatFinishReason | null = null;
  let usage: ChatUsage | undefined;
  let frames: SseFrame[] = [];

  const emit = (type: string, fields: JsonObject): void => {
    frames.push({ event: type, data: JSON.stringify({ type, sequence_number: sequence++, ...fields }) });
  };
  const start = (): void => {
    if (started) return;
    started = true;
    const response = responseShell(ctx, 'in_progress');
    emit('response.created', { response });
    emit('response.in_progress', { response });
  };
  const at = (item: OpenItem): JsonObject => ({ item_id: item.id, output_index: item.index });

  const closePart = (item: Extract<OpenItem, { kind: 'message' }>): void => {
    const part = item.part;
    if (!part) return;
    const where = { ...at(item), content_index: item.parts.length };
    const done = part.type === 'text' ? outputText(part.text) : { type: 'refusal', refusal: part.text };
    if (part.type === 'text') emit('response.output_text.done', { ...where, text: part.text, logprobs: [] });
    else emit('response.refusal.done', { ...where, refusal: part.text });
    emit('response.content_part.done', { ...where, part: done });
    item.parts.push(done);
    item.part = null;
  };

  const close = (status: string): void => {
    const item = open;
    if (!item) return;
    open = null;
    let done: JsonObject;
    if (item.kind === 'reasoning') {
      if (item.summaryOpen) {
        const where = { ...at(item), summary_index: 0 };
        emit('response.reasoning_summary_text.done', { ...where, text: item.summary });
        emit('response.reasoning_summary_part.done', {
          ...where,
          part: { type: 'summary_text', text: item.summary },
        });
      }
      done = reasoningItem(item.id, item.summary, item.blocks);
    } else if (item.kind === 'message') {
      closePart(item);
      done = messageItem(item.id, status, item.parts);
    } else {
      const name = clientToolName(toolNames, item.name);
      emit('response.function_call_arguments.done', { ...at(item), arguments: item.args, name: name.name });
      done = functionCallItem(item.id, status, item.callId, name, item.args);
    }
    output.push(done);
    emit('response.output_item.done', { output_index: item.index, item: done });
  };

  const openItem = <K extends OpenItem['kind']>(
    kind: K,
    make: (index: number, id: string) => OpenItem,
  ): OpenItem => {
    if (open?.kind === kind && kind !== 'function_call') return open;
    close('completed');
    const index = output.length;
    const prefix = kind === 'reasoning' ? 'rs' : kind === 'message' ? 'msg' : 'fc';
    const item = make(index, itemId(ctx, prefix, index));
    open = item;
    const added =
      item.kind === 'reasoning'
        ? reasoningItem(item.id, '', [])
        : item.kind === 'message'
          ? messageItem(item.id, 'in_progress', [])
          : functionCallItem(item.id, 'in_progress', item.callId, clientToolName(toolNames, item.name), '');
    emit('response.output_item.added', { output_index: index, item: added });
    return item;
  };

  const reasoning = (): Extract<OpenItem, { kind: 'reasoning' }> =>
    openItem('reasoning', (index, id) => ({
      kind: 'reasoning',
      index,
      id,
      summary: '',
      summaryOpen: false,
      blocks: [],
    })) as Extract<OpenItem, { kind: 'reasoning' }>;

  const messagePart = (type: 'text' | 'refusal'): Extract<OpenItem, { kind: 'message' }> => {
    const item = openItem('message', (index, id) => ({
      kind: 'message',
      index,
      id,
      parts: [],
      part: null,
    })) as Extract<OpenItem, { kind: 'message' }>;
    if (item.part?.type === type) return item;
    closePart(item);
    item.part = { type, text: '' };
    const part = type === 'text' ? outputText('') : { type: 'refusal', refusal: '' };
    emit('response.content_part.added', { ...at(item), content_index: item.parts.length, part });
    return item;
  };

  /** A provider-run search arrives whole (its query complete): its item opens and closes at once. */
  const webSearch = (query: string): void => {
    close('completed');
    const index = output.length;
    const where = { item_id: itemId(ctx, 'ws', index), output_index: index };
    emit('response.output_item.added', {
      output_index: index,
      item: webSearchCallItem(where.item_id, 'in_progress', query),
    });
    emit('response.web_search_call.in_progress', where);
    emit('response.web_search_call.searching', where);
    emit('response.web_search_call.completed', where);
    const done = webSearchCallItem(where.item_id, 'completed', query);
    output.push(done);
    emit('response.output_item.done', { output_index: index, item: done });
  };

  const onDelta = (delta: ChatDelta): void => {
    for (const search of delta.web_search_calls ?? []) webSearch(search.query);
    if (delta.reasoning_content) {
      const item = reasoning();
      if (!item.summaryOpen) {
        item.summaryOpen = true;
        emit('response.reasoning_summary_part.added', {
          ...at(item),
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        });
      }
      item.summary += delta.reasoning_content;
      emit('response.reasoning_summary_text.delta', {
        ...at(item),
        summary_index: 0,
        delta: delta.reasoning_content,
      });
    }
    if (delta.thinking_blocks?.length) reasoning().blocks.push(...delta.thinking_blocks);
    for (const [type, text] of [
      ['text', delta.content],
      ['refusal', delta.refusal],
    ] as const) {
      if (!text) continue;
      const item = messagePart(type);
      item.part!.text += text;
      const where = { ...at(item), content_index: item.parts.length };
      if (type === 'text') emit('response.output_text.delta', { ...where, delta: text, logprobs: [] });
      else emit('response.refusal.delta', { ...where, delta: text });
    }
    for (const call of delta.tool_calls ?? []) {
      let item = open?.kind === 'function_call' && open.call === call.index ? open : null;
      if (!item) {
        if (seenCalls.has(call.index))
          throw upstreamError('The provider interleaved the arguments of parallel tool calls.');
        seenCalls.add(call.index);
        const { id = '', function: fn } = call;
        item = openItem('function_call', (index, itemIdValue) => ({
          kind: 'function_call',
          index,
          id: itemIdValue,
          call: call.index,
          callId: id,
          name: fn?.name ?? '',
          args: '',
        })) as Extract<OpenItem, { kind: 'function_call' }>;
      }
      const args = call.function?.arguments;
      if (args) {
        item.args += args;
        emit('response.function_call_arguments.delta', { ...at(item), delta: args });
      }
    }
  };

  const take = (): SseFrame[] => {
    const out = frames;
    frames = [];
    return out;
  };

  return {
    push(chunk: ChatChunk) {
      start();
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        if (choice.index !== 0) continue; // n > 1 is refused on the way in
        onDelta(choice.delta);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      return take();
    },
    end() {
      start();
      const { status, incomplete_details } = terminalStatus(finish);
      close(status);
      const response = {
        ...responseShell(ctx, status),
        incomplete_details,
        output,
        usage: responsesUsage(usage),
      };
      emit(status === 'completed' ? 'response.completed' : 'response.incomplete', { response });
      return take();
    },
    fail(error) {
      start();
      close('incomplete');
      const code = error.type === 'rate_limit_error' ? 'rate_limit_exceeded' : 'server_error';
      const response = {
        ...responseShell(ctx, 'failed'),
        error: { code, message: error.message },
        output,
        usage: responsesUsage(usage),
      };
      emit('response.failed', { response });
      return take();
    },
  };
}
