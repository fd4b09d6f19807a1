/**
 * Azure OpenAI's own members on top of the OpenAI wire (only what this folder reads): the content
 * filter's verdicts, on a refused prompt's 400 and on success bodies and stream chunks.
 */

/** One category's verdict; `severity` for the harm categories, `detected` for jailbreak and the like. */
export interface ContentFilterVerdict {
  readonly filtered?: boolean;
  readonly severity?: string;
  readonly detected?: boolean;
}

export type ContentFilterResult = Readonly<Record<string, ContentFilterVerdict | undefined>>;

/** The 400 of a filtered prompt (`code: content_filter`, the verdicts under `innererror`). */
export interface AzureErrorBody {
  readonly error?: {
    readonly code?: string | null;
    readonly message?: string;
    readonly param?: string | null;
    readonly innererror?: {
      readonly code?: string;
      readonly content_filter_result?: ContentFilterResult;
    };
  };
}
