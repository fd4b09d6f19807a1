import { type AnsweredResponse, type Turn } from '#libs/providers';

/** How much conversation a session keeps (`edge.websockets.conversation_max_*`). */
export interface ConversationLimits {
  readonly maxItems: number;
  readonly maxBytes: number;
}

/** The items a request is sent with, and their JSON bytes. */
export interface History {
  readonly items: readonly unknown[];
  readonly bytes: number;
}

/** Why a continuation cannot be expanded. */
export type ContinuationRefusal = 'unknown_previous' | 'conversation_full';

/**
 * The conversation a session's continuations (`previous_response_id`) are expanded from. Like
 * the API's own connection-local cache, it holds the most recent response only (its whole chain:
 * every input item and every output item up to it), so its memory is one bounded chain whatever
 * the session does: a continuation of an older response is refused as unknown, as it would be
 * upstream. Every provider is sent the expanded history (a translated one has no other way; a
 * native one is asked over HTTP per turn, storing nothing an id could name).
 */
export class Conversation {
  private latest: { readonly id: string; readonly history: History | null } | null = null;

  constructor(private readonly limits: ConversationLimits) {}

  /** The history a turn is sent with: the chain it continues, then its own items. */
  expand(turn: Turn): History | ContinuationRefusal {
    const own = { items: turn.items, bytes: jsonBytes(turn.items) };
    if (turn.previous === null) return own;
    const latest = this.latest;
    if (latest === null || latest.id !== turn.previous) return 'unknown_previous';
    // Kept too large to continue: its items were let go.
    if (latest.history === null) return 'conversation_full';
    const history = joined(latest.history, own);
    return this.fits(history) ? history : 'conversation_full';
  }

  /** A response completed on `history`: the chain a continuation of it is expanded from. */
  keep(history: History, answered: AnsweredResponse): void {
    const chain = joined(history, { items: answered.output, bytes: jsonBytes(answered.output) });
    // Beyond the bound its items are not held: a continuation of it is refused, not expanded.
    this.latest = { id: answered.id, history: this.fits(chain) ? chain : null };
  }

  private fits(history: History): boolean {
    return history.items.length <= this.limits.maxItems && history.bytes <= this.limits.maxBytes;
  }
}

const joined = (a: History, b: History): History => ({
  items: [...a.items, ...b.items],
  bytes: a.bytes + b.bytes,
});

/** JSON length, the measure the bound is in (UTF-16 units; close to bytes for JSON text). */
const jsonBytes = (items: readonly unknown[]): number => JSON.stringify(items).length;
