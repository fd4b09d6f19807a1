import { describe, expect, it } from '@jest/globals';
import { resolveLogOutput } from './log-output.js';

const tty = { isTTY: true };
const pipe = { isTTY: undefined }; // what Node sets on a pipe or a file

describe('resolveLogOutput', () => {
  it('unset, is pretty and coloured on a terminal and JSON elsewhere', () => {
    expect(resolveLogOutput({ logFormat: null, logColor: null }, tty)).toEqual({
      format: 'pretty',
      color: true,
    });
    expect(resolveLogOutput({ logFormat: null, logColor: null }, pipe)).toEqual({
      format: 'json',
      color: false,
    });
  });

  it('follows LOG_FORMAT whatever stdout is', () => {
    expect(resolveLogOutput({ logFormat: 'json', logColor: null }, tty)).toEqual({
      format: 'json',
      color: false,
    });
    expect(resolveLogOutput({ logFormat: 'pretty', logColor: null }, pipe)).toEqual({
      format: 'pretty',
      color: false,
    });
  });

  it('colours nothing under NO_COLOR, and a pipe under FORCE_COLOR; never JSON', () => {
    expect(resolveLogOutput({ logFormat: null, logColor: false }, tty)).toEqual({
      format: 'pretty',
      color: false,
    });
    expect(resolveLogOutput({ logFormat: 'pretty', logColor: true }, pipe)).toEqual({
      format: 'pretty',
      color: true,
    });
    expect(resolveLogOutput({ logFormat: null, logColor: true }, pipe)).toEqual({
      format: 'json',
      color: false,
    });
  });
});
