import { PROVIDER_TYPES } from '#libs/config';
import { type ClientApi, CLIENT_APIS, servingOf } from '#libs/providers';

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
  const header = ['Client endpoint', ...PROVIDER_TYPES.map((t) => `\`${t}\``)];
  const rows = ENDPOINTS.map((e) => [
    `\`POST ${e.route}\``,
    ...PROVIDER_TYPES.map((type) => CELL[servingOf(e, type)]),
  ]);
  return [header, ...rows];
}

/** The rows as a Markdown table (what to paste into the README when the capabilities change). */
export function compatibilityMarkdown(): string {
  const [header, ...rows] = compatibilityRows();
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header!), line(header!.map(() => '---')), ...rows.map(line)].join('\n');
}
