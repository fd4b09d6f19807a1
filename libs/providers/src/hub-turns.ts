import { type ChatMessage } from './chat.js';
import { checkedToolCall, toolArgumentsObject } from './hub-fields.js';
import { invalid } from './translation-errors.js';

/**
 * Hub chat messages -> the alternating user/assistant turns of the vendors that take instructions
 * apart from the conversation (Anthropic, Converse, Gemini). The grouping rules are one for all
 * of them; the blocks a message becomes are each vendor's own, given as `TurnBuilders`.
 */

export type TurnRole = 'user' | 'assistant';

export interface TurnBuilders<Block, SystemBlock> {
  /** The target's checks of a message's own fields (its `name`, its shape) before its role is read. */
  readonly check: (m: ChatMessage, at: string) => void;
  /** A system or developer message's blocks, refused (a 400) where the target takes only some. */
  readonly system: (m: ChatMessage, at: string) => readonly SystemBlock[];
  readonly user: (m: ChatMessage, at: string) => readonly Block[];
  readonly assistant: (m: ChatMessage, at: string) => readonly Block[];
  /** A tool message's result block, which goes in a user turn. */
  readonly tool: (m: ChatMessage, at: string) => Block;
  readonly isToolResult: (block: Block) => boolean;
}

export interface HubTurns<Block, SystemBlock> {
  readonly system: SystemBlock[];
  readonly turns: { readonly role: TurnRole; readonly blocks: Block[] }[];
}

/**
 * System and developer messages are hoisted into `system` in order (these vendors take
 * instructions only there); tool results become blocks of a user turn; consecutive turns of one
 * role are merged (the vendors require alternation), a user turn's tool results first (they answer
 * the model's last turn, and Claude refuses them after text). A message with no blocks adds no turn.
 */
export function hubTurns<Block, SystemBlock>(
  messages: readonly ChatMessage[],
  builders: TurnBuilders<Block, SystemBlock>,
): HubTurns<Block, SystemBlock> {
  const system: SystemBlock[] = [];
  const turns: { role: TurnRole; blocks: Block[] }[] = [];
  const append = (role: TurnRole, blocks: readonly Block[]): void => {
    if (blocks.length === 0) return;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.blocks.push(...blocks);
    else turns.push({ role, blocks: [...blocks] });
  };
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    builders.check(m, at);
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(...builders.system(m, at));
        return;
      case 'user':
        return append('user', builders.user(m, at));
      case 'assistant':
        return append('assistant', builders.assistant(m, at));
      case 'tool':
        return append('user', [builders.tool(m, at)]);
      default:
        throw invalid(`${at}.role`, `${at}.role must be system, developer, user, assistant or tool.`);
    }
  });
  return {
    system,
    turns: turns.map(({ role, blocks }) => ({
      role,
      blocks: role === 'user' ? resultsFirst(blocks, builders.isToolResult) : blocks,
    })),
  };
}

function resultsFirst<Block>(blocks: Block[], isResult: (block: Block) => boolean): Block[] {
  const results = blocks.filter(isResult);
  if (results.length === 0 || results.length === blocks.length) return blocks;
  return [...results, ...blocks.filter((b) => !isResult(b))];
}

/**
 * A system message's blocks when the target takes text only there: an image is refused with
 * `refusal` (the target's wording), after every part was read (a malformed part is named first).
 */
export function systemTexts<Block, Text extends Block>(
  blocks: readonly Block[],
  isText: (block: Block) => block is Text,
  refusal: () => Error,
): Text[] {
  return blocks.map((block) => {
    if (!isText(block)) throw refusal();
    return block;
  });
}

/** An assistant's tool call as these targets take it back: arguments as an object, not JSON text. */
export interface CallToSend {
  readonly id: string;
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/**
 * An assistant message's tool calls, each checked to have an id and a name, with arguments that
 * must be a JSON object: refused naming `target` ("a Bedrock provider") otherwise.
 */
export function callsToSend(m: ChatMessage, at: string, target: string): CallToSend[] {
  return (m.tool_calls ?? []).map((unchecked, j) => {
    const where = `${at}.tool_calls[${j}]`;
    const call = checkedToolCall(unchecked, where);
    return {
      id: call.id,
      name: call.function.name,
      input: toolArgumentsObject(call.function.arguments, `${where}.function.arguments`, target),
    };
  });
}
