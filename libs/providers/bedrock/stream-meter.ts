import { type ResponseFacts, type StreamMeter } from '../src/adapter.js';
import { obj, parseObject, str } from '../src/content-parts.js';
import { type CanonicalUsage } from '../src/types.js';
import { canonicalUsageOf } from './usage.js';

/**
 * ConverseStream (as `converseDecoder` writes it, `{"<eventType>": payload}`): `messageStop`
 * carries the stop reason, `metadata` (its last event) the usage and the end. Deltas are
 * recognised by their first bytes, never parsed. Converse names no model in its answers.
 */
export class ConverseMeter implements StreamMeter {
  completed = false;
  usage: CanonicalUsage | null = null;
  private stopReason: string | null = null;

  get usageFinal(): boolean {
    return this.usage !== null && this.completed;
  }

  see(data: string): boolean {
    if (data.startsWith('{"metadata"')) {
      this.usage = canonicalUsageOf(obj(parseObject(data)?.metadata).usage);
      this.completed = true;
    } else if (data.startsWith('{"messageStop"')) {
      this.stopReason = str(obj(parseObject(data)?.messageStop).stopReason) ?? this.stopReason;
    }
    return true;
  }

  facts(): ResponseFacts | null {
    return this.stopReason === null ? null : { model: null, finishReasons: [this.stopReason] };
  }
}
