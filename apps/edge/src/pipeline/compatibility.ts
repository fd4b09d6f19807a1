import { type ClientApi, CLIENT_APIS, servingColumns } from '#libs/providers';

/** The client endpoints in the order the README's compatibility table lists them. */
const ENDPOINTS: readonly ClientApi[] = [
  CLIENT_APIS.chat,
  CLIENT_APIS.completions,
  CLIENT_APIS.responses,
  CLIENT_APIS.messages,
  CLIENT_APIS.generate_content,
  CLIENT_APIS.embeddings,
];

const CELL = { native: 'native', translated: 'translated', none: '— (400)' } as const;

/**
 * Which client endpoint reaches which provider type, as the edge actually routes it (the
 * capability table, limited to the translators wired in), as table rows: header first. The
 * README's `## Compatibility` table is checked against it, so the two cannot drift apart.
 */
export function compatibilityRows(): string[][] {
  // One column per provider type; a type hosting models of several formats has one per kind.
  const columns = servingColumns();
  const header = ['Client endpoint', ...columns.map((c) => c.label)];
  const rows = ENDPOINTS.map((e) => [`\`POST ${e.route}\``, ...columns.map((c) => CELL[c.serving(e)])]);
  return [header, ...rows];
}

/** The rows as a Markdown table (what to paste into the README when the capabilities change). */
export function compatibilityMarkdown(): string {
  const [header, ...rows] = compatibilityRows();
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header!), line(header!.map(() => '---')), ...rows.map(line)].join('\n');
}
