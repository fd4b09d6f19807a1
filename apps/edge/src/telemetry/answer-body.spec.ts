import { describe, expect, it } from '@jest/globals';
import { parseAnswer } from './answer-body.js';

describe('parseAnswer', () => {
  it('an object body, parsed', () => {
    expect(parseAnswer(Buffer.from('{"a":1}'))).toEqual({ a: 1 });
  });

  it('nothing usable: null, never a throw', () => {
    expect(parseAnswer(null)).toBeNull();
    expect(parseAnswer(Buffer.alloc(0))).toBeNull();
    expect(parseAnswer(Buffer.from('not json'))).toBeNull();
    expect(parseAnswer(Buffer.from('{broken'))).toBeNull();
    expect(parseAnswer(Buffer.from('[1]'))).toBeNull();
  });
});
