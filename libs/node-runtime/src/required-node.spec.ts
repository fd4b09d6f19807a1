import { describe, expect, it } from '@jest/globals';
import { REQUIRED_NODE_MAJOR, unsupportedNodeMessage } from './required-node.js';

describe('unsupportedNodeMessage', () => {
  it('accepts the required major and later ones', () => {
    expect(unsupportedNodeMessage('edge', `v${REQUIRED_NODE_MAJOR}.0.0`, '/x/node')).toBeNull();
    expect(unsupportedNodeMessage('edge', 'v24.21.0', '/x/node')).toBeNull();
    expect(unsupportedNodeMessage('edge', 'v26.1.0', '/x/node')).toBeNull();
  });

  it('names the app, the Node it needs, the one it got and where that one is, on one line', () => {
    const message = unsupportedNodeMessage('edge', 'v20.20.2', '/usr/bin/node');
    expect(message).toContain('edge needs Node.js 24 or newer, but this is Node.js v20.20.2 (/usr/bin/node)');
    expect(message).toContain('npm start');
    expect(message).not.toContain('\n');
  });

  it('refuses 22 and a version it cannot read', () => {
    expect(unsupportedNodeMessage('worker', 'v22.22.0', '/n')).toMatch(/^worker needs Node.js 24/);
    expect(unsupportedNodeMessage('worker', 'garbage', '/n')).toMatch(/^worker needs Node.js 24/);
  });
});
