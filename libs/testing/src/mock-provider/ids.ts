let counter = 0;

/** Unique, sortable ids shaped like the vendors' (`chatcmpl-...`, `msg_...`, `call_...`). */
export function mockId(prefix: string): string {
  counter = (counter + 1) % 2_821_109_907_456; // 36^8: keeps the suffix at 8 base-36 digits
  return `${prefix}mock${counter.toString(36).padStart(8, '0')}`;
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
