import { describe, expect, it } from '@jest/globals';
import { LocalBreaker } from './local-breaker.js';

const breaker = () => new LocalBreaker({ failures: 3, cooldownMs: 1000 });

describe('LocalBreaker', () => {
  it('opens after the configured consecutive failures, not before', () => {
    const b = breaker();
    b.record('p', true, 0);
    b.record('p', true, 0);
    expect(b.isOpen('p', 0)).toBe(false);
    b.record('p', true, 0);
    expect(b.isOpen('p', 0)).toBe(true);
    expect(b.state('p', 0)).toBe('open');
  });

  it('a success resets the count', () => {
    const b = breaker();
    b.record('p', true, 0);
    b.record('p', true, 0);
    b.record('p', false, 0);
    b.record('p', true, 0);
    expect(b.isOpen('p', 0)).toBe(false);
  });

  it('lets exactly one trial through after the cooldown; success closes', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('p', true, 0);
    expect(b.isOpen('p', 999)).toBe(true);
    expect(b.isOpen('p', 1000)).toBe(false);
    expect(b.state('p', 1000)).toBe('half_open');
    b.onAttempt('p', 1000);
    expect(b.isOpen('p', 1001)).toBe(true); // the trial is out
    b.record('p', false, 1200);
    expect(b.isOpen('p', 1200)).toBe(false);
    expect(b.state('p', 1200)).toBe('closed');
  });

  it('a trial that ends without a verdict (client gone) frees the trial slot, still half-open', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('p', true, 0);
    b.onAttempt('p', 1000);
    expect(b.isOpen('p', 1001)).toBe(true);
    b.release('p');
    expect(b.isOpen('p', 1002)).toBe(false);
    expect(b.state('p', 1002)).toBe('half_open');
  });

  it('a failed trial re-opens for another cooldown', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('p', true, 0);
    b.onAttempt('p', 1000);
    b.record('p', true, 1100);
    expect(b.isOpen('p', 2099)).toBe(true);
    expect(b.isOpen('p', 2100)).toBe(false);
  });

  it('keeps providers apart and reports only the non-closed ones', () => {
    const b = breaker();
    for (let i = 0; i < 3; i++) b.record('a', true, 0);
    b.record('b', false, 0);
    expect(b.isOpen('b', 0)).toBe(false);
    expect(b.snapshot(0)).toEqual({ a: { state: 'open', failures: 3 } });
  });
});
