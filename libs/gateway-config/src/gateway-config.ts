import { configParser, gatewayConfigSchemaWith } from '#libs/config';
import { PROVIDER_ENTRY_SCHEMA } from '#libs/providers';

export const gatewayConfigSchema = gatewayConfigSchemaWith(PROVIDER_ENTRY_SCHEMA);

export const { parseConfig, validateConfig, loadConfigFile } = configParser(gatewayConfigSchema);
