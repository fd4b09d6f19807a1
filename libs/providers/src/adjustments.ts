import { type GatewayError, moreItems, recordableText } from '#libs/protocol';

/**
 * What a translation did to a request besides mapping it field for field: the items it carried in
 * another shape and the hints it dropped. The edge puts the list on the log row, in one response
 * header and in a metric, so nothing is dropped silently.
 *
 * The three-way policy every translator follows:
 * - carried: mapped to the target's equivalent (`carried('flattened tools[4] namespace x (5 tools)')`);
 * - dropped as a hint: it tunes the vendor's machinery and the answer's shape does not depend on it
 *   (`drop('context_management')`); under `translation: strict` a drop is refused instead;
 * - refused: the answer would be wrong for the client: the translator throws a 400 naming the field.
 */
export interface Adjustments {
  /** `translation: strict`: a hint the target cannot take is refused instead of dropped. */
  readonly strict: boolean;
  /** Records an item carried in the target's shape (never refused: the answer is the same). */
  carried(what: string): void;
  /**
   * Drops a hint the target cannot take, or, when strict, throws the 400 that `refusal` builds
   * (it names the field). Without `refusal` the drop is recorded in strict mode too: hints that
   * were always dropped (caching marks where the target caches by itself) are no reason for a 400.
   */
  drop(param: string, refusal?: () => GatewayError, detail?: string): void;
}

/** The items a log row keeps (the job contract allows 64 of up to 300 characters). */
export const MAX_ADJUSTMENTS = 32;
export const MAX_ADJUSTMENT_CHARS = 200;

/**
 * One request's adjustments, in the order they were made (each recorded once). Items hold field
 * names the client chose, so each is made recordable here, where it is captured (see
 * recordableText), and past MAX_ADJUSTMENTS a last line counts the rest.
 */
export class AdjustmentLog implements Adjustments {
  private readonly seen: Map<string, string>;
  private readonly unlisted: Set<string>;

  /** `from`: a log whose items come first (the client-to-hub step of the same request). */
  constructor(
    readonly strict = false,
    from?: AdjustmentLog,
  ) {
    this.seen = new Map(from?.seen);
    this.unlisted = new Set(from?.unlisted);
  }

  get items(): readonly string[] {
    const items = [...this.seen.values()];
    if (this.unlisted.size > 0) items.push(moreItems(this.unlisted.size));
    return items;
  }

  carried(what: string): void {
    this.record(what);
  }

  drop(param: string, refusal?: () => GatewayError, detail?: string): void {
    if (this.strict && refusal) throw refusal();
    this.record(detail ? `dropped ${param} ${detail}` : `dropped ${param}`);
  }

  private record(item: string): void {
    if (this.seen.has(item)) return;
    if (this.seen.size < MAX_ADJUSTMENTS) this.seen.set(item, recordableText(item, MAX_ADJUSTMENT_CHARS));
    else this.unlisted.add(item);
  }
}

/**
 * For callers that translate without a request to record on (tests, probes): lenient, and what it
 * records goes nowhere.
 */
export const untracked = (): Adjustments => new AdjustmentLog(false);

/** The short summary sent to the client in `x-gateway-adjustments` (header-safe ASCII, bounded). */
export function adjustmentsHeader(items: readonly string[], maxLength = 512): string | null {
  if (items.length === 0) return null;
  const text = items.join('; ').replace(/[^\x20-\x7e]/g, '?');
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 3)}...`;
}
