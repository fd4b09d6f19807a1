import { type ModelConfig } from '#libs/config';
import { type ClientFormat } from '#libs/protocol';

/**
 * The model objects of both vendors' Models APIs, from the gateway's catalog: OpenAI's
 * `{id, object, created, owned_by}` and Anthropic's `{type, id, display_name, created_at}`.
 * The catalog has no display names, so Anthropic clients see the id there too.
 */
export function modelObject(m: ModelConfig, format: ClientFormat): object {
  if (format === 'openai') return { id: m.id, object: 'model', created: m.created, owned_by: m.owned_by };
  return { type: 'model', id: m.id, display_name: m.id, created_at: rfc3339(m.created) };
}

/** The whole list in one page: Anthropic's cursor fields name its ends, `has_more` is false. */
export function modelList(models: readonly ModelConfig[], format: ClientFormat): object {
  const data = models.map((m) => modelObject(m, format));
  if (format === 'openai') return { object: 'list', data };
  return { data, has_more: false, first_id: models[0]?.id ?? null, last_id: models.at(-1)?.id ?? null };
}

/** Unix seconds as Anthropic writes times (`2025-02-19T00:00:00Z`: no fraction). */
const rfc3339 = (seconds: number): string => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
