import { type KeyRecord } from '#libs/auth';
import { type CatalogSnapshot, type ModelConfig } from '#libs/config';
import { GatewayError } from '#libs/protocol';

/**
 * The model a key may call, its alias resolved inside the key's group, or a clean error: 404
 * unknown to the gateway (an alias of another group's model included), 403 a model id outside the
 * key's group.
 */
export function authorizeModel(catalog: CatalogSnapshot, key: KeyRecord, model: unknown): ModelConfig {
  if (typeof model !== 'string' || model.length === 0) {
    throw new GatewayError('invalid_request', "Missing required parameter: 'model'.", { param: 'model' });
  }
  const resolved = catalog.resolveModel(key.group, model);
  if (resolved === 'unknown') {
    throw new GatewayError('model_not_found', `The model \`${truncate(model)}\` does not exist.`, {
      param: 'model',
    });
  }
  if (resolved === 'not_allowed') {
    throw new GatewayError(
      'model_not_allowed',
      `Your API key's group does not have access to the model \`${model}\`.`,
      {
        param: 'model',
      },
    );
  }
  return resolved;
}

const truncate = (s: string): string => (s.length > 100 ? `${s.slice(0, 100)}...` : s);
