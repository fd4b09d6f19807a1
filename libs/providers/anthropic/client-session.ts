import { type ClientApi } from '../src/adapter.js';
import { headerText, stringField } from '../src/client-api-support.js';

/**
 * Claude Code names its session in `x-claude-code-session-id`, and again inside
 * `metadata.user_id` (a JSON string of its device, account and session ids), which is read as a
 * whole when the header is absent. Other Messages clients put their end user in
 * `metadata.user_id`: that keeps one user's requests together, which serves their cache as well.
 */
export const messagesSession: NonNullable<ClientApi['session']> = (body, headers) =>
  headerText(headers, 'x-claude-code-session-id') ?? stringField(body.metadata, 'user_id');
