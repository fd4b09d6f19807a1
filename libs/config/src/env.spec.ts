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

describe('LOG_FORMAT', () => {
  it('is left to the logger (null) unless set to json or pretty, in any case', () => {
    expect(readEnv({}).logFormat).toBeNull();
    expect(readEnv({ LOG_FORMAT: '' }).logFormat).toBeNull();
    expect(readEnv({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(readEnv({ LOG_FORMAT: ' Pretty ' }).logFormat).toBe('pretty');
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => readEnv({ LOG_FORMAT: 'text' })).toThrow('LOG_FORMAT must be json or pretty, got "text"');
  });
});

describe('log colour', () => {
  it('is off under NO_COLOR (any non-empty value, even with FORCE_COLOR), on under FORCE_COLOR', () => {
    expect(readEnv({}).logColor).toBeNull();
    expect(readEnv({ NO_COLOR: '' }).logColor).toBeNull();
    expect(readEnv({ NO_COLOR: '1' }).logColor).toBe(false);
    expect(readEnv({ NO_COLOR: '1', FORCE_COLOR: '1' }).logColor).toBe(false);
    expect(readEnv({ FORCE_COLOR: '' }).logColor).toBe(true);
    expect(readEnv({ FORCE_COLOR: '1' }).logColor).toBe(true);
    expect(readEnv({ FORCE_COLOR: '0' }).logColor).toBe(false);
  });
});
