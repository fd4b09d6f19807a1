import { type NativeRoute, type WireFormat } from '#libs/providers';
import { type RelayHooks } from './relay.js';

/**
 * Hooks of a native stream: events pass byte for byte. The only rewrite: usage the gateway asked
 * for on the client's behalf is taken out again (`withoutUnaskedUsage`), so the client sees the
 * events it would have seen without the gateway.
 */
export function nativeHooks(route: NativeRoute, wire: WireFormat, clientWantsUsage: boolean): RelayHooks {
  const strip = clientWantsUsage ? undefined : route.withoutUnaskedUsage;
  let events = 0;
  let upstreamFailed = false;
  return {
    event(raw, data) {
      if (data === null) return raw;
      events++;
      // The vendor's own error event is already in the client's format: it ends the stream.
      if (wire.isErrorEvent(data)) upstreamFailed = true;
      return strip === undefined ? raw : strip(raw);
    },
    end: () => '',
    fail: (message) => (upstreamFailed ? '' : wire.failEvent(message, events)),
  };
}
