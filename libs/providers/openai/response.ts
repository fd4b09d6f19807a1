import { type CanonicalUsage } from '../src/types.js';
import { usageFromOpenAI, usageFromResponsesUsage } from './usage.js';

export { usageFromOpenAI, usageFromResponsesUsage } from './usage.js';

/** Usage of a non-stream chat completion body, or null if it carries none. */
export function usageFromChatCompletion(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromOpenAI((body as { usage?: unknown }).usage);
}

/** Usage of a non-stream Responses API body, or null if it carries none. */
export function usageFromResponse(body: unknown): CanonicalUsage | null {
  if (typeof body !== 'object' || body === null) return null;
  return usageFromResponsesUsage((body as { usage?: unknown }).usage);
}
