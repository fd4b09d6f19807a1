import { describe, expect, it } from '@jest/globals';
import { crc16, hashSlot, hashTagOf } from './hash-slot.js';

describe('hashSlot', () => {
  it('computes CRC16-XMODEM as the Cluster specification gives it', () => {
    // The specification's reference value: CRC16 of "123456789" is 0x31C3.
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
  });

  it.each([
    // Values from `CLUSTER KEYSLOT` on a real Redis.
    ['foo', 12182],
    ['bar', 5061],
    ['{user1000}.following', 3443],
    ['{user1000}.followers', 3443],
    ['foo{}{bar}', 8363],
    ['foo{{bar}}zap', 4015],
    ['foo{bar}{zap}', 5061],
  ])('%s is in slot %i', (key, slot) => {
    expect(hashSlot(key)).toBe(slot);
  });

  it('hashes only the first non-empty {tag}', () => {
    expect(hashTagOf('a:{u1}:b')).toBe('u1');
    expect(hashTagOf('a:{}:{u1}')).toBe('a:{}:{u1}');
    expect(hashTagOf('a:{u1')).toBe('a:{u1');
  });
});
