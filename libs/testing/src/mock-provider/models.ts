import type { EndpointInput, EndpointReply } from './types.js';

/** A fixed creation time keeps the listing byte-for-byte deterministic. */
const CREATED = 1_700_000_000;

function ownedBy(id: string): string {
  return id.includes('claude') ? 'anthropic' : 'openai';
}

/**
 * `GET /v1/models`. OpenAI and Anthropic share the path; a request carrying `anthropic-version`
 * gets Anthropic's paginated shape, like the real Anthropic API.
 */
export function listModels({ behaviour, headers }: EndpointInput): EndpointReply {
  const ids = behaviour.models;
  if (headers['anthropic-version'] !== undefined) {
    const data = ids.map((id) => ({
      type: 'model',
      id,
      display_name: id,
      created_at: new Date(CREATED * 1000).toISOString(),
    }));
    return {
      kind: 'json',
      status: 200,
      body: { data, has_more: false, first_id: ids[0] ?? null, last_id: ids[ids.length - 1] ?? null },
    };
  }
  const data = ids.map((id) => ({ id, object: 'model', created: CREATED, owned_by: ownedBy(id) }));
  return { kind: 'json', status: 200, body: { object: 'list', data } };
}

/** `GET /v1/models/{id}`: the model, or OpenAI's 404 `model_not_found`. */
export function retrieveModel(id: string, { behaviour }: EndpointInput): EndpointReply {
  if (!behaviour.models.includes(id)) {
    return {
      kind: 'json',
      status: 404,
      body: {
        error: {
          message: `The model '${id}' does not exist`,
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      },
    };
  }
  return {
    kind: 'json',
    status: 200,
    body: { id, object: 'model', created: CREATED, owned_by: ownedBy(id) },
  };
}
