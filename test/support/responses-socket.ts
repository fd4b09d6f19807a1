import OpenAI from 'openai';
import { ResponsesWS } from 'openai/resources/responses/ws';

/**
 * The official SDK's `ResponsesWS` (Responses over WebSocket) as the tests read it: every event in
 * order (error events included, the close last), and one response's events at a time.
 */
type ServerEvent = OpenAI.Responses.ResponsesServerEvent;

/** A `ResponsesWS` whose events (and errors, and close) are read in order. */
export class Session {
  readonly ws: ResponsesWS;
  private readonly seen: Array<ServerEvent | { type: 'close'; code: number }> = [];
  private wake: (() => void) | null = null;
  closeCode: number | null = null;

  constructor(baseURL: string, apiKey: string, headers: Record<string, string> = {}) {
    const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
    this.ws = new ResponsesWS(client, { headers });
    this.ws.on('event', (event) => this.push(event));
    // Error events reach 'event' too; the SDK also raises them here (unhandled would reject).
    this.ws.on('error', () => undefined);
    this.ws.on('close', (code) => {
      this.closeCode = code;
      this.push({ type: 'close', code });
    });
  }

  private push(event: ServerEvent | { type: 'close'; code: number }): void {
    this.seen.push(event);
    this.wake?.();
  }

  /** The next event (in order), waiting for it. */
  async next(): Promise<ServerEvent | { type: 'close'; code: number }> {
    while (this.seen.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
    return this.seen.shift()!;
  }

  /** Every event up to and including the first that `until` accepts. */
  async until(until: (e: { type: string }) => boolean): Promise<Array<{ type: string }>> {
    const events: Array<{ type: string }> = [];
    for (;;) {
      const e = await this.next();
      events.push(e);
      if (until(e) || e.type === 'close') return events;
    }
  }

  /** One response: its events until it completes (or an error / the close). */
  async create(body: Record<string, unknown>): Promise<Array<{ type: string }>> {
    this.ws.send({ type: 'response.create', ...body } as OpenAI.Responses.ResponsesClientEvent);
    return this.until((e) => ['response.completed', 'response.incomplete', 'error'].includes(e.type));
  }
}

export const completedOf = (events: Array<{ type: string }>) =>
  (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response;
