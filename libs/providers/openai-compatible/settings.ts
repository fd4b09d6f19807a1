import { z } from 'zod';

/**
 * Vendor profiles of `openai-compatible`, for requests translated from another format: what each
 * server refuses (compatible.ts). `generic` suits vLLM, Ollama, LM Studio, LiteLLM.
 */
export const COMPATIBLE_VENDORS = ['generic', 'deepseek', 'groq'] as const;
export type CompatibleVendor = (typeof COMPATIBLE_VENDORS)[number];

export const compatibleSettings = {
  vendor: z.enum(COMPATIBLE_VENDORS).optional().meta({
    title: 'Vendor profile',
    description:
      'What the server refuses in translated requests (generic: vLLM, Ollama, LM Studio, LiteLLM).',
  }),
};
