/**
 * The shapes of the GenAI semantic conventions' content attributes (`gen_ai.input.messages`,
 * `gen_ai.output.messages`, `gen_ai.system_instructions`, semconv v1.41 JSON schemas). Parts are
 * open: `text`, `reasoning`, `tool_call`, `tool_call_response`, `blob`, `uri`, `file`, or any
 * other type a vendor has (the schemas' GenericPart).
 */
export interface MessagePart {
  readonly type: string;
  readonly [field: string]: unknown;
}

export interface InputMessage {
  readonly role: string;
  readonly parts: readonly MessagePart[];
  readonly name?: string;
}

/** One per choice (candidate) the model produced. */
export interface OutputMessage {
  readonly role: string;
  readonly parts: readonly MessagePart[];
  readonly finish_reason: string;
}
