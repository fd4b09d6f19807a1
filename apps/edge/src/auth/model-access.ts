import { type KeyRecord } from '#libs/auth';
import { type Catalog, type ModelConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';

/** The model a key may call, or a clean error: 404 unknown to the gateway, 403 not in the key's group. */
export function authorizeModel(catalog: Catalog, key: KeyRecord, model: unknown): ModelConfig {
  if (typeof model !== 'string' || model.length === 0) {
    throw new GatewayError('invalid_request', "Missing required parameter: 'model'.", { param: 'model' });
  }
  const config = catalog.models.get(model);
  if (!config) {
    throw new GatewayError('model_not_found', `The model \`${truncate(model)}\` does not exist.`, {
      param: 'model',
    });
  }
  if (!catalog.groups.get(key.group)?.has(model)) {
    throw new GatewayError(
      'model_not_allowed',
      `Your API key's group does not have access to the model \`${model}\`.`,
      {
        param: 'model',
      },
    );
  }
  return config;
}

const truncate = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}...` : s);
