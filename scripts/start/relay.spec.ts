import { describe, expect, it } from '@jest/globals';
import { type LogOutput } from '#libs/logging';
import { LogRelay, logRecordOf } from './relay.js';

const NOW = new Date('2026-03-01T09:08:07.006Z');
const JSON_OUT: LogOutput = { format: 'json', color: false };
const PRETTY: LogOutput = { format: 'pretty', color: false };

function relayWith(output: LogOutput, level = 'info') {
  const written: string[] = [];
  const relay = new LogRelay({
    out: { write: (text: string) => written.push(text) },
    output,
    level,
    appWidth: 7,
    now: () => NOW,
  });
  return { relay, written };
}

const appLine = JSON.stringify({
  level: 'info',
  time: NOW.toISOString(),
  app: 'console',
  pid: 7,
  msg: 'no admin yet',
  setup_url: 'http://127.0.0.1:8081/setup?token=t',
});

describe('LogRelay, JSON output', () => {
  it("passes an app's JSON line through byte for byte, with no prefix", () => {
    const { relay, written } = relayWith(JSON_OUT);
    relay.childLine('console', 7, 'stdout', appLine);
    expect(written).toEqual([`${appLine}\n`]);
  });

  it('turns a plain line into a record of that app: info from stdout, error from stderr', () => {
    const { relay, written } = relayWith(JSON_OUT);
    relay.childLine('edge', 9, 'stdout', 'plain text');
    relay.childLine('edge', 9, 'stderr', '    at boom (x.js:1:1)');
    relay.childLine('edge', 9, 'stdout', '{"not":"a log record"}');
    expect(written.map((w) => JSON.parse(w) as unknown)).toEqual([
      { level: 'info', time: NOW.toISOString(), app: 'edge', pid: 9, msg: 'plain text' },
      { level: 'error', time: NOW.toISOString(), app: 'edge', pid: 9, msg: '    at boom (x.js:1:1)' },
      { level: 'info', time: NOW.toISOString(), app: 'edge', pid: 9, msg: '{"not":"a log record"}' },
    ]);
  });

  it('filters its own lines and plain lines by LOG_LEVEL, never an app’s own JSON line', () => {
    const { relay, written } = relayWith(JSON_OUT, 'warn');
    relay.say('info', 'stopping edge');
    relay.childLine('mock', 3, 'stdout', 'listening');
    relay.say('error', 'edge exited');
    relay.childLine('console', 7, 'stdout', appLine);
    expect(written.map((w) => (JSON.parse(w) as { msg: string }).msg)).toEqual([
      'edge exited',
      'no admin yet',
    ]);
  });

  it('writes the banner as one record with its fields, whatever LOG_LEVEL says', () => {
    const { relay, written } = relayWith(JSON_OUT, 'error');
    relay.banner('ready', { console_url: 'http://c' }, 'ignored text');
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0]!)).toEqual({
      level: 'info',
      time: NOW.toISOString(),
      app: 'start',
      pid: process.pid,
      msg: 'ready',
      console_url: 'http://c',
    });
  });

  it('hands every JSON record of an app to the listeners (where the setup link is found)', () => {
    const { relay } = relayWith(JSON_OUT);
    const seen: [string, unknown][] = [];
    relay.onRecord((app, record) => seen.push([app, record.setup_url]));
    relay.childLine('console', 7, 'stdout', appLine);
    relay.childLine('console', 7, 'stdout', 'plain');
    expect(seen).toEqual([['console', 'http://127.0.0.1:8081/setup?token=t']]);
  });
});

describe('LogRelay, pretty output', () => {
  it('renders JSON and plain lines alike, app names padded to one width', () => {
    const { relay, written } = relayWith(PRETTY);
    relay.childLine('console', 7, 'stdout', appLine);
    relay.childLine('edge', 9, 'stderr', 'crash\x1b[2J');
    relay.say('info', 'stopping edge');
    expect(written).toEqual([
      expect.stringMatching(
        /^\d\d:\d\d:\d\d INFO {2}console no admin yet setup_url=http:\/\/127\.0\.0\.1:8081\/setup\?token=t\n$/,
      ),
      expect.stringMatching(/^\d\d:\d\d:\d\d ERROR edge {4}crash\\x1b\[2J\n$/),
      expect.stringMatching(/^\d\d:\d\d:\d\d INFO {2}start {3}stopping edge\n$/),
    ]);
  });

  it('colours each app its own way when colour is on, and writes the banner text as it is', () => {
    const { relay, written } = relayWith({ format: 'pretty', color: true });
    relay.childLine('edge', 1, 'stdout', 'a');
    relay.childLine('console', 2, 'stdout', 'b');
    relay.childLine('edge', 1, 'stdout', 'c');
    expect(written[0]).toContain('\x1b[36medge   \x1b[0m');
    expect(written[1]).toContain('\x1b[33mconsole\x1b[0m');
    expect(written[2]).toContain('\x1b[36medge   \x1b[0m');
    relay.banner('ready', { a: 1 }, '\nThe gateway is ready.\n');
    expect(written[3]).toBe('\nThe gateway is ready.\n');
  });
});

describe('logRecordOf', () => {
  it('is a JSON object with a string level, else null', () => {
    expect(logRecordOf('{"level":"info","msg":"x"}')).toEqual({ level: 'info', msg: 'x' });
    expect(logRecordOf('{"level":30}')).toBeNull();
    expect(logRecordOf('[1]')).toBeNull();
    expect(logRecordOf('{broken')).toBeNull();
    expect(logRecordOf('text')).toBeNull();
  });
});
