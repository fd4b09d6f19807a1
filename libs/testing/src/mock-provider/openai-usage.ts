/** The `usage` objects of OpenAI's chat/completions and Responses APIs. */

/** Cache reads and writes inside a prompt total, as OpenAI reports them (writes only when not 0). */
function promptDetails(prompt: number, cached: number, writes: number): Record<string, number> {
  const read = Math.min(cached, prompt);
  const written = Math.min(writes, prompt - read);
  return { cached_tokens: read, ...(written > 0 && { cache_write_tokens: written }) };
}

/** `audioOutputTokens`: speech answered, counted in `completion_tokens` on top of its text ones. */
export function chatUsage(
  promptTokens: number,
  completionTokens: number,
  cachedTokens: number,
  cacheWriteTokens = 0,
  audioOutputTokens = 0,
): object {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens + audioOutputTokens,
    total_tokens: promptTokens + completionTokens + audioOutputTokens,
    prompt_tokens_details: {
      ...promptDetails(promptTokens, cachedTokens, cacheWriteTokens),
      audio_tokens: 0,
    },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: audioOutputTokens,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function responsesUsage(
  inputTokens: number,
  outputTokens: number,
  cachedTokens: number,
  cacheWriteTokens = 0,
): object {
  return {
    input_tokens: inputTokens,
    input_tokens_details: promptDetails(inputTokens, cachedTokens, cacheWriteTokens),
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}
