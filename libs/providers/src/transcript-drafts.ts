import { CONTENT_MAX_BYTES } from '#libs/protocol';
import { type MessagePart } from '#libs/telemetry';
import { other, parsedArguments, reasoning, text } from './content-parts.js';

/**
 * Drafts of the parts a stream transcript puts back together from deltas (every wire format's
 * `StreamTranscript` builds on these), keyed by where the wire says each part goes.
 */
export type Draft =
  | { kind: 'text' | 'reasoning'; text: string }
  | { kind: 'call'; id: string | null; name: string; args: string; input: unknown }
  | { kind: 'other'; type: string };
export type Drafts = Map<string, Draft>;

/** A choice (or the one message) that never said why it ended was cut. */
export const CUT = 'error';

export function append(parts: Drafts, key: string, kind: 'text' | 'reasoning', piece: unknown): void {
  if (typeof piece !== 'string' || piece === '') return;
  const draft = parts.get(key);
  if (draft?.kind === kind) draft.text = grow(draft.text, piece);
  else parts.set(key, { kind, text: piece });
}

/**
 * `text` and the next piece, until it is as long as the bound: the capture is cut there anyway,
 * so a long generation costs the transcript at most that much memory per part (each UTF-16 unit
 * is at least one byte, so the cut still shows).
 */
export function grow(text: string, piece: unknown): string {
  return typeof piece === 'string' && text.length < CONTENT_MAX_BYTES ? text + piece : text;
}

export function callDraft(parts: Drafts, key: string): Extract<Draft, { kind: 'call' }> {
  const draft = parts.get(key);
  if (draft?.kind === 'call') return draft;
  const fresh: Extract<Draft, { kind: 'call' }> = {
    kind: 'call',
    id: null,
    name: '',
    args: '',
    input: undefined,
  };
  parts.set(key, fresh);
  return fresh;
}

export function partsOf(drafts: Drafts): MessagePart[] {
  return [...drafts.values()].map((d): MessagePart => {
    switch (d.kind) {
      case 'text':
        return text(d.text);
      case 'reasoning':
        return reasoning(d.text);
      case 'call':
        // Anthropic's arguments come as JSON deltas after an empty `input`; a cut stream's stay text.
        return {
          type: 'tool_call',
          id: d.id,
          name: d.name,
          arguments: d.args === '' ? (d.input ?? {}) : parsedArguments(d.args),
        };
      case 'other':
        return other(d.type);
    }
  });
}
