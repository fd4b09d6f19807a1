/** The `usage` objects of OpenAI's chat/completions and Responses APIs. */

export function chatUsage(promptTokens: number, completionTokens: number, cachedTokens: number): object {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: Math.min(cachedTokens, promptTokens), audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

export function responsesUsage(inputTokens: number, outputTokens: number, cachedTokens: number): object {
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: Math.min(cachedTokens, inputTokens) },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
}
