import { GatewayError } from '#libs/protocol';
import { type AzureErrorBody, type ContentFilterResult } from './wire.js';

/** Category names are Azure's keys; anything longer or odder is not one and is not echoed. */
const CATEGORY = /^[a-z_]{1,40}$/;

/** The categories a verdict set filtered (or detected), in Azure's order. */
export function filteredCategories(result: ContentFilterResult | undefined): string[] {
  if (result === undefined || typeof result !== 'object' || result === null) return [];
  return Object.entries(result).flatMap(([name, verdict]) =>
    CATEGORY.test(name) && verdict?.filtered === true ? [name] : [],
  );
}

/**
 * Azure's refusal of a prompt by its content filter (400, `code: content_filter`) as the gateway's
 * own 400 `content_filter`, which each client format renders in its shape with the category named.
 * Null for any other answer (they pass or map as for OpenAI).
 */
export function contentFilterError(status: number, body: Buffer): GatewayError | null {
  if (status !== 400 || !body.includes('content_filter')) return null;
  let parsed: AzureErrorBody;
  try {
    parsed = JSON.parse(body.toString('utf8')) as AzureErrorBody;
  } catch {
    return null;
  }
  const error = parsed?.error;
  if (error?.code !== 'content_filter') return null;
  const categories = filteredCategories(error.innererror?.content_filter_result);
  const named = categories.length > 0 ? categories.join(', ') : 'unspecified';
  return new GatewayError(
    'content_filter',
    `The prompt was refused by the provider's content filter (category: ${named}). Modify the prompt and retry.`,
    { param: 'prompt' },
  );
}
