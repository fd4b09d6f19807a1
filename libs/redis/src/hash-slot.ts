/**
 * Redis Cluster's key -> slot mapping (CRC16-XMODEM of the key, or of its first non-empty `{...}`
 * hash tag, modulo 16384), as the Cluster specification defines it. Used by tests to prove that
 * every multi-key script and MULTI of the gateway stays on one slot.
 */
export const CLUSTER_SLOTS = 16384;

const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/** CRC16-XMODEM (polynomial 0x1021, initial value 0) of the bytes. */
export function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc;
}

/** The part of the key Cluster hashes: the first `{...}` with something inside, else the whole key. */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  if (close < 0 || close === open + 1) return key;
  return key.slice(open + 1, close);
}

export function hashSlot(key: string): number {
  return crc16(Buffer.from(hashTagOf(key), 'utf8')) % CLUSTER_SLOTS;
}
