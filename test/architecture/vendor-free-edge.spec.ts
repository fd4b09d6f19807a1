import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';

/**
 * Vendor knowledge lives in `libs/providers/<vendor>/` behind the adapters; the edge reads every
 * wire format through them. So no source file of the edge (code and comments alike) names a
 * vendor, a vendor's product or a wire format by its vendor's name. Controllers are exempt: they
 * declare the vendors' own routes, which SPEC.md fixes. Tests are exempt: they drive vendor data.
 */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const EDGE = join(repoRoot, 'apps/edge/src');

export const VENDOR_NAMES =
  /\b(openai|anthropic|claude|gemini|google|perplexity|sonar|deepseek|groq|mistral|gpt|vertex|bedrock|azure|ollama|vllm)/i;

const exempt = (file: string): boolean =>
  /\.(spec|int-spec|e2e-spec)\.ts$/.test(file) || file.endsWith('.controller.ts');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !exempt(path) ? [path] : [];
  });
}

/** `file:line: text` for each line of `text` that names a vendor. */
export function vendorMentions(text: string, file: string): string[] {
  return text
    .split('\n')
    .flatMap((line, i) => (VENDOR_NAMES.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));
}

describe('the edge is vendor-free', () => {
  it('no edge source outside the controllers names a vendor', () => {
    const files = sources(EDGE);
    expect(files.length).toBeGreaterThan(40);
    const mentions = files.flatMap((file) =>
      vendorMentions(readFileSync(file, 'utf8'), relative(repoRoot, file)),
    );
    expect(mentions).toEqual([]);
  });

  it('the check finds a vendor in code and in comments, and passes neutral text', () => {
    expect(vendorMentions("if (format.name === 'anthropic') return;", 'a.ts')).toHaveLength(1);
    expect(vendorMentions('// OpenAI puts usage on the last chunk', 'b.ts')).toHaveLength(1);
    expect(vendorMentions('const wire = prepared.wire;\nwire.meter(true);', 'c.ts')).toEqual([]);
  });
});
