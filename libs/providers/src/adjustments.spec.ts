import { describe, expect, it } from '@jest/globals';
import { AdjustmentLog, MAX_ADJUSTMENT_CHARS, MAX_ADJUSTMENTS } from './adjustments.js';

describe('AdjustmentLog records what a client could shape, bounded and escaped', () => {
  it('escapes a control character in a field name', () => {
    const log = new AdjustmentLog();
    log.drop('tools[0].\u0000');
    expect(log.items).toEqual(['dropped tools[0].\\u0000']);
  });

  it('cuts a long item', () => {
    const log = new AdjustmentLog();
    log.drop('k'.repeat(301));
    expect(log.items[0]).toHaveLength(MAX_ADJUSTMENT_CHARS);
    expect(log.items[0]).toMatch(/^dropped k+…$/);
  });

  it(`lists ${MAX_ADJUSTMENTS} items and counts the others, each once`, () => {
    const log = new AdjustmentLog();
    for (let i = 0; i < 70; i++) log.drop(`x${i}`);
    log.drop('x0');
    log.drop('x69');
    expect(log.items).toHaveLength(MAX_ADJUSTMENTS + 1);
    expect(log.items.at(-1)).toBe('and 38 more');
  });

  it("starts from another log's items (the hub step of the same request) without changing it", () => {
    const hub = new AdjustmentLog();
    hub.drop('anthropic-beta header');
    const attempt = new AdjustmentLog(false, hub);
    attempt.drop('top_k');
    attempt.drop('anthropic-beta header');
    expect(attempt.items).toEqual(['dropped anthropic-beta header', 'dropped top_k']);
    expect(hub.items).toEqual(['dropped anthropic-beta header']);
  });

  it('refuses in strict mode before recording anything', () => {
    const log = new AdjustmentLog(true);
    expect(() => log.drop('x', () => new Error('refused') as never)).toThrow('refused');
    expect(log.items).toEqual([]);
  });
});
