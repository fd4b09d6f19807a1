import { configParser, gatewayConfigSchemaWith } from '#libs/config';
import { providerEntrySchemaOfRegistry } from '#libs/providers';

let schema: ReturnType<typeof gatewayConfigSchemaWith> | null = null;

/** Built on first use, once every provider type is registered (`registerProviderType`). */
export function gatewayConfigSchema(): ReturnType<typeof gatewayConfigSchemaWith> {
  return (schema ??= gatewayConfigSchemaWith(providerEntrySchemaOfRegistry()));
}

export const { parseConfig, validateConfig, loadConfigFile } = configParser(gatewayConfigSchema);
