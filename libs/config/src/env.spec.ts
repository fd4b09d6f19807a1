import { describe, expect, it } from '@jest/globals';
import { readEnv } from './env.js';

describe('EDGE_PROCESSES', () => {
  it('is one process unless set', () => {
    expect(readEnv({}).edgeProcesses).toBe(1);
    expect(readEnv({ EDGE_PROCESSES: '' }).edgeProcesses).toBe(1);
  });

  it('takes auto (any case) or a whole number', () => {
    expect(readEnv({ EDGE_PROCESSES: 'auto' }).edgeProcesses).toBe('auto');
    expect(readEnv({ EDGE_PROCESSES: ' AUTO ' }).edgeProcesses).toBe('auto');
    expect(readEnv({ EDGE_PROCESSES: '4' }).edgeProcesses).toBe(4);
  });

  it.each(['0', '-1', '1.5', 'two', '257'])('refuses %s, naming the variable', (value) => {
    expect(() => readEnv({ EDGE_PROCESSES: value })).toThrow(/EDGE_PROCESSES must be auto or a whole number/);
  });
});
