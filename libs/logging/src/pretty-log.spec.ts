import { describe, expect, it } from '@jest/globals';
import { clockOf, escapeControl, prettyLine } from './pretty-log.js';

const TIME = '2026-03-01T09:08:07.006Z';
const CLOCK = clockOf(TIME); // local time of the machine running the test
const plain = { color: false };

describe('prettyLine', () => {
  it('is time, level, app, [context] message, then the other fields as key=value', () => {
    const line = prettyLine(
      {
        level: 'info',
        time: TIME,
        app: 'edge',
        pid: 42,
        context: 'RoutePublisher',
        msg: 'became leader',
        trace_id: 'abc123',
        status: 502,
      },
      plain,
    );
    expect(line).toBe(`${CLOCK} INFO  edge [RoutePublisher] became leader trace_id=abc123 status=502\n`);
  });

  it('pads the level and the app name, so the messages of several apps line up', () => {
    const edge = prettyLine(
      { level: 'warn', time: TIME, app: 'edge', msg: 'a' },
      { color: false, appWidth: 7 },
    );
    const cons = prettyLine(
      { level: 'error', time: TIME, app: 'console', msg: 'b' },
      { color: false, appWidth: 7 },
    );
    expect(edge.indexOf('a\n')).toBe(cons.indexOf('b\n'));
    expect(edge).toBe(`${CLOCK} WARN  edge    a\n`);
  });

  it('shows the clock as HH:MM:SS of the local time', () => {
    expect(CLOCK).toMatch(/^\d\d:\d\d:\d\d$/);
    const d = new Date(TIME);
    expect(CLOCK.slice(3)).toBe(
      `${String(d.getMinutes()).padStart(2, '0')}:${String(d.getSeconds()).padStart(2, '0')}`,
    );
  });

  it('quotes a value with spaces or quotes, bounds a long one, and counts the fields it leaves out', () => {
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`f${i}`, i]));
    const line = prettyLine({ level: 'info', time: TIME, app: 'a', msg: 'm', ...many }, plain);
    expect(line).toContain('f0=0 f1=1 f2=2 f3=3 f4=4 f5=5 +2 more\n');
    const quoted = prettyLine({ level: 'info', time: TIME, app: 'a', msg: 'm', who: 'a b "c"' }, plain);
    expect(quoted).toContain('who="a b \\"c\\""');
    const long = prettyLine({ level: 'info', time: TIME, app: 'a', msg: 'm', v: 'x'.repeat(500) }, plain);
    expect(long).toContain(`v=${'x'.repeat(160)}…\n`);
    const obj = prettyLine({ level: 'info', time: TIME, app: 'a', msg: 'm', o: { a: [1] } }, plain);
    expect(obj).toContain('o={"a":[1]}');
  });

  it("puts an error's type and message on the line and its frames on indented lines below", () => {
    const err = {
      type: 'TypeError',
      message: 'boom',
      stack: 'TypeError: boom\n    at f (a.js:1:2)\n    at g (b.js:3:4)',
    };
    expect(prettyLine({ level: 'error', time: TIME, app: 'a', msg: 'failed', err }, plain)).toBe(
      `${CLOCK} ERROR a failed TypeError: boom\n    at f (a.js:1:2)\n    at g (b.js:3:4)\n`,
    );
    // Nest's logger.error(message, stack) arrives as a `stack` string.
    const nest = prettyLine(
      { level: 'error', time: TIME, app: 'a', msg: 'x', stack: 'Error: x\n    at h (c.js:5:6)' },
      plain,
    );
    expect(nest).toBe(`${CLOCK} ERROR a x\n    at h (c.js:5:6)\n`);
    // An `err` that is not an object is a field like any other, not lost.
    expect(prettyLine({ level: 'error', time: TIME, app: 'a', msg: 'x', err: 'text' }, plain)).toContain(
      'err=text',
    );
  });

  it('colours time, level, app and fields only when asked', () => {
    const record = { level: 'error', time: TIME, app: 'edge', msg: 'm', k: 'v' };
    expect(prettyLine(record, plain)).not.toContain('\x1b');
    const colored = prettyLine(record, { color: true, appColor: 36 });
    expect(colored).toBe(
      `\x1b[2m${CLOCK}\x1b[0m \x1b[31mERROR\x1b[0m \x1b[36medge\x1b[0m m \x1b[2mk=v\x1b[0m\n`,
    );
  });

  it('cannot be made to print a second line: newlines, escapes and separators in the message are shown escaped', () => {
    const forged = `ok\n${CLOCK} ERROR edge forged\r\x1b[2K\x1b[31mred\u2028\u202eevil`;
    const line = prettyLine(
      { level: 'info', time: TIME, app: 'edge', msg: forged, [`k\ney`]: `v\nal ue` },
      plain,
    );
    expect(line.split('\n')).toHaveLength(2); // one line and the final newline
    expect(line).toBe(
      `${CLOCK} INFO  edge ok\\n${CLOCK} ERROR edge forged\\r\\x1b[2K\\x1b[31mred\\u2028\\u202eevil k\\ney="v\\nal ue"\n`,
    );
  });

  it('escapes the stack frames too, each on its own indented line', () => {
    const err = { type: 'Error', message: 'm', stack: 'Error: m\n    at x\r\x1b[1A' };
    expect(prettyLine({ level: 'error', time: TIME, app: 'a', msg: '', err }, plain)).toBe(
      `${CLOCK} ERROR a Error: m\n    at x\\r\\x1b[1A\n`,
    );
  });
});

describe('escapeControl', () => {
  it('leaves printable text as it is', () => {
    expect(escapeControl('café ✓ 日本 "q" \\ /')).toBe('café ✓ 日本 "q" \\ /');
  });

  it('writes C0, DEL, C1, line separators and bidi controls as escapes', () => {
    expect(escapeControl('\t\n\r\x00\x07\x1b\x7f\x85\x9b\u2028\u2029\u202a\u202e\u2066\u2069')).toBe(
      '\\t\\n\\r\\x00\\x07\\x1b\\x7f\\x85\\x9b\\u2028\\u2029\\u202a\\u202e\\u2066\\u2069',
    );
  });
});
