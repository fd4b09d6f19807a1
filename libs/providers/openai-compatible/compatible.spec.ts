import { describe, expect, it } from '@jest/globals';
import { type ChatRequest } from '../src/chat.js';
import {
  OPENAI_COMPATIBLE_VENDORS,
  openAICompatible,
  openAICompatibleFormats,
  openAICompatibleProvider,
} from './index.js';

const req: ChatRequest = {
  model: 'deepseek-reasoner',
  messages: [
    { role: 'user', content: '2+2?' },
    { role: 'assistant', content: '4', reasoning_content: 'simple sum' },
    { role: 'user', content: 'and 3+3?' },
  ],
  max_completion_tokens: 256,
  metadata: { team: 'a' },
  stream: true,
  thinking: { type: 'enabled', budget_tokens: 2048 },
};

describe('openAICompatible', () => {
  it('generic: max_tokens, no metadata, extensions stripped, stream usage forced', () => {
    const { path, body } = openAICompatibleProvider.fromHub(req, 'Qwen/Qwen3-8B');
    expect(path).toBe('/chat/completions');
    expect(body).toEqual({
      model: 'Qwen/Qwen3-8B',
      messages: [
        { role: 'user', content: '2+2?' },
        { role: 'assistant', content: '4' },
        { role: 'user', content: 'and 3+3?' },
      ],
      max_tokens: 256,
      stream: true,
      stream_options: { include_usage: true },
      reasoning_effort: 'low',
    });
    expect(openAICompatibleProvider.vendor).toBe('openai-compatible');
  });

  it('composes a vendor from options: omit, defaults that never override, kept extensions', () => {
    const vendor = openAICompatible({
      name: 'legacy-llm',
      omit: ['stream_options'],
      defaults: { temperature: 0.6, top_k: 20 },
      keepHubExtensions: true,
    });
    const { body } = vendor.fromHub({ ...req, temperature: 0 }, 'm');
    expect(body.stream_options).toBeUndefined();
    expect(body.metadata).toBeUndefined();
    expect(body.temperature).toBe(0);
    expect(body.top_k).toBe(20);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect((body.messages as ChatRequest['messages'])[1]?.reasoning_content).toBe('simple sum');
  });

  it('has one format per vendor the config accepts, generic being the default', () => {
    expect(
      Object.fromEntries(Object.entries(openAICompatibleFormats).map(([k, f]) => [k, f.vendor])),
    ).toEqual({
      generic: 'openai-compatible',
      deepseek: 'deepseek',
      groq: 'groq',
    });
    expect(openAICompatibleProvider).toBe(openAICompatibleFormats.generic);
  });

  it('groq: refused fields omitted and the limit sent as max_completion_tokens', () => {
    const groq = openAICompatible(OPENAI_COMPATIBLE_VENDORS.groq);
    const { body } = groq.fromHub({ ...req, logprobs: true } as ChatRequest, 'llama-3.3-70b-versatile');
    expect(body.logprobs).toBeUndefined();
    expect(body.max_completion_tokens).toBe(256);
    expect(body.max_tokens).toBeUndefined();
  });

  it('reads DeepSeek, vLLM and Ollama reasoning into the hub reasoning_content', () => {
    const body = (message: object) => ({
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        { index: 0, message: { role: 'assistant', content: '6', ...message }, finish_reason: 'stop' },
      ],
    });
    const deepseek = openAICompatible(OPENAI_COMPATIBLE_VENDORS.deepseek);
    expect(deepseek.toHub(body({ reasoning_content: 'r1' })).choices[0]?.message.reasoning_content).toBe(
      'r1',
    );
    expect(
      openAICompatibleProvider.toHub(body({ reasoning: 'r2' })).choices[0]?.message.reasoning_content,
    ).toBe('r2');
    const stream = openAICompatibleProvider.streamToHub();
    const [chunk] = stream.push({
      event: null,
      data: JSON.stringify({
        id: 'x',
        object: 'chat.completion.chunk',
        created: 1,
        model: 'm',
        choices: [{ index: 0, delta: { reasoning: 'hm' }, finish_reason: null }],
      }),
    });
    expect(chunk?.choices[0]?.delta.reasoning_content).toBe('hm');
  });
});
