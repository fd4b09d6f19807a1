import { describe, expect, it } from '@jest/globals';
import { type NativeRoute, type WireFormat } from '#libs/providers';
import { nativeHooks } from './native-stream.js';

const wire = {
  isErrorEvent: (data: string) => data.startsWith('{"err'),
  failEvent: (message: string, events: number) => `data: ${message} after ${events}\n\n`,
} as unknown as WireFormat;
const route = { withoutUnaskedUsage: (raw: string) => raw.replace(',"u":0', '') } as unknown as NativeRoute;

describe('native stream hooks', () => {
  it('pass events byte for byte, hiding only usage the client did not ask for', () => {
    const raw = 'data: {"id":"c","u":0}\n\n';
    expect(nativeHooks(route, wire, true).event(raw, '{"id":"c","u":0}')).toBe(raw);
    expect(nativeHooks(route, wire, false).event(raw, '{"id":"c","u":0}')).toBe('data: {"id":"c"}\n\n');
    expect(nativeHooks({} as NativeRoute, wire, false).event(raw, '{"id":"c","u":0}')).toBe(raw);
  });

  it('end a broken stream with the wire format’s error event, counting the events so far', () => {
    const hooks = nativeHooks(route, wire, true);
    hooks.event('event: a\ndata: {}\n\n', '{}');
    hooks.event(': ping\n\n', null);
    hooks.event('event: b\ndata: {}\n\n', '{}');
    expect(hooks.fail('boom')).toBe('data: boom after 2\n\n');
  });

  it('add nothing when the vendor already sent its own error event', () => {
    const hooks = nativeHooks(route, wire, true);
    hooks.event('data: {"err":1}\n\n', '{"err":1}');
    expect(hooks.fail('boom')).toBe('');
  });
});
