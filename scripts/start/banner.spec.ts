import { describe, expect, it } from '@jest/globals';
import { type BannerInput, bannerFields, KEY_CREATE_COMMAND, readyBanner } from './banner.js';

// A real token's length (32 random bytes, base64url) and the default local addresses.
const SETUP_URL = `http://127.0.0.1:8081/setup?token=${'x'.repeat(43)}`;
const input: BannerInput = {
  edgeUrl: 'http://127.0.0.1:8080',
  consoleUrl: 'http://127.0.0.1:8081',
  admin: 'missing',
  setupUrl: SETUP_URL,
};

describe('readyBanner', () => {
  it('fits one screen: at most 10 lines, none over 100 columns', () => {
    const lines = readyBanner(input, false).trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(10);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(100);
  });

  it('gives both base URLs, the console, the setup link and how to get a key', () => {
    const text = readyBanner(input, false);
    expect(text).toContain('  OpenAI SDKs     http://127.0.0.1:8080/v1\n');
    expect(text).toContain('  Anthropic SDKs  http://127.0.0.1:8080   (the root address, no /v1)\n');
    expect(text).toContain('  Console         http://127.0.0.1:8081\n');
    expect(text).toContain(`  First admin     ${SETUP_URL}\n`);
    expect(text).toContain('http://127.0.0.1:8081/keys > Create API key');
    expect(text).toContain(KEY_CREATE_COMMAND);
    expect(text).toContain('First call, step by step');
  });

  it('has no setup rows once an admin exists, and says what to do when no link was logged', () => {
    expect(readyBanner({ ...input, admin: 'exists' }, false)).not.toContain('First admin');
    const noLink = readyBanner({ ...input, setupUrl: null }, false);
    expect(noLink).toContain('First admin     no setup link was logged');
    expect(noLink).toContain('CONSOLE_ADMIN_EMAIL and CONSOLE_ADMIN_PASSWORD');
  });

  it('is bold only with colour', () => {
    expect(readyBanner(input, false)).not.toContain('\x1b');
    expect(readyBanner(input, true)).toContain('\x1b[1mThe gateway is ready.');
  });
});

describe('bannerFields', () => {
  it('are the same facts for JSON output', () => {
    expect(bannerFields(input)).toEqual({
      openai_base_url: 'http://127.0.0.1:8080/v1',
      anthropic_base_url: 'http://127.0.0.1:8080',
      console_url: 'http://127.0.0.1:8081',
      setup_url: SETUP_URL,
      api_keys_url: 'http://127.0.0.1:8081/keys',
      key_create: KEY_CREATE_COMMAND,
    });
  });

  it('leave the link out once an admin exists, and say why there is none when it is missing', () => {
    expect(bannerFields({ ...input, admin: 'exists' })).not.toHaveProperty('setup_url');
    expect(bannerFields({ ...input, setupUrl: null })).toMatchObject({
      setup: expect.stringContaining('no setup link was logged'),
    });
  });
});
