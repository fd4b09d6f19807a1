import { type Migration } from 'kysely/migration';
import * as m0001 from './0001_initial.js';
import * as m0002 from './0002_console.js';
import * as m0003 from './0003_quota.js';
import * as m0004 from './0004_usage_estimated.js';
import * as m0005 from './0005_key_invalidation_outbox.js';
import * as m0006 from './0006_translation_adjustments.js';
import * as m0007 from './0007_usage_components.js';
import * as m0008 from './0008_budgets.js';
import * as m0009 from './0009_log_repairs.js';
import * as m0010 from './0010_fees_and_audio.js';
import * as m0011 from './0011_config_store.js';
import * as m0012 from './0012_audit_events.js';
import * as m0013 from './0013_model_names.js';
import * as m0014 from './0014_input_characters.js';
import * as m0015 from './0015_roles_and_admin_tokens.js';
import * as m0016 from './0016_teams.js';
import * as m0017 from './0017_secret_bindings.js';
import * as m0018 from './0018_audio_output.js';
import * as m0019 from './0019_usage_rollups.js';
import * as m0020 from './0020_charges_retention.js';
import * as m0021 from './0021_log_filter_indexes.js';
import * as m0022 from './0022_list_indexes.js';
import * as m0023 from './0023_quota_cold_load.js';

/**
 * Every migration, imported statically so the list works from the TypeScript sources (Jest) and
 * from dist alike. Names sort in apply order; append only, never rename or edit a released one.
 */
export const MIGRATIONS: Readonly<Record<string, Migration>> = Object.freeze({
  '0001_initial': m0001,
  '0002_console': m0002,
  '0003_quota': m0003,
  '0004_usage_estimated': m0004,
  '0005_key_invalidation_outbox': m0005,
  '0006_translation_adjustments': m0006,
  '0007_usage_components': m0007,
  '0008_budgets': m0008,
  '0009_log_repairs': m0009,
  '0010_fees_and_audio': m0010,
  '0011_config_store': m0011,
  '0012_audit_events': m0012,
  '0013_model_names': m0013,
  '0014_input_characters': m0014,
  '0015_roles_and_admin_tokens': m0015,
  '0016_teams': m0016,
  '0017_secret_bindings': m0017,
  '0018_audio_output': m0018,
  '0019_usage_rollups': m0019,
  '0020_charges_retention': m0020,
  '0021_log_filter_indexes': m0021,
  '0022_list_indexes': m0022,
  '0023_quota_cold_load': m0023,
});
