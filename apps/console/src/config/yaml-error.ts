/**
 * A YAML parser's refusal in the document's terms. The parser is recursive: a document nested
 * thousands of levels deep exhausts its stack, and it reports JavaScript's "Maximum call stack
 * size exceeded", which says nothing to the person who wrote the file.
 */
export function yamlErrorText(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0]!;
  if (!first.includes('Maximum call stack size exceeded')) return first;
  const where = /\bat line \d+, column \d+/.exec(first)?.[0];
  return `the document is nested too deeply to read${where ? ` (${where})` : ''}: a gateway.yaml is a few levels deep (providers, models and groups, each a list or mapping of settings)`;
}
