import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { yamlErrorText } from './yaml-error.js';

const refusal = (text: string): string => {
  try {
    parse(text);
  } catch (err) {
    return yamlErrorText(err);
  }
  throw new Error('parsed');
};

describe('yamlErrorText', () => {
  it('a document nested thousands of levels: what is wrong, in its terms and with where', () => {
    const deep = refusal(`${'['.repeat(5000)}${']'.repeat(5000)}`);
    expect(deep).toMatch(
      /^the document is nested too deeply to read \(at line 1, column \d+\): a gateway\.yaml is a few levels deep/,
    );
    expect(deep).not.toMatch(/call stack/);
  });

  it("any other refusal: the parser's first line, as before", () => {
    expect(refusal('a: [1, 2')).toMatch(/^Missing closing \]|^Flow sequence/);
  });
});
