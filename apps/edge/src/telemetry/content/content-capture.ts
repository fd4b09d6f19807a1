import { Logger } from '@nestjs/common';
import { type Attributes } from '@opentelemetry/api';
import {
  type ClientApi,
  type JsonObject,
  type StreamMeter,
  type StreamTranscript,
  type WireFormat,
} from '#libs/providers';
import { type RequestLogJob } from '#libs/queue';
import { ATTR, boundedJson, genAiOperation, type OutputMessage, requestSpan } from '#libs/telemetry';
import { type CapturedExchange, type RequestRecord } from '../../logs/request-record.js';

/** A request's content as bounded JSON text (`CONTENT_MAX_BYTES` each). */
export interface CapturedContent {
  readonly system: string | null;
  readonly input: string;
  /** null when nothing was answered, or the answer holds no generated content (embeddings). */
  readonly output: string | null;
  /** The edge relayed an upstream answer, so the request's last attempt is the one that gave it. */
  readonly answered: boolean;
}

/**
 * Prompt and completion capture (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). Keeps,
 * on the request's record, the client's parsed body and the answer (the upstream body already
 * parsed, or a transcript of the stream); at the request's end turns them into bounded JSON, writes the one
 * content log line and hands the values to the attempt span. Built only when capture is on, so
 * with it off none of this runs.
 */
export class ContentCapture {
  private readonly logger = new Logger('GenAiContent');
  /** The request is going upstream: its body (a reference; read at the finish). */
  requestPlanned(record: RequestRecord, api: ClientApi, body: JsonObject): void {
    record.content = { api, body, answered: false, output: null, transcript: null };
  }

  /** A non-stream answer is being relayed: what it generated (null when it holds no generation). */
  answered(record: RequestRecord, output: OutputMessage[] | null): void {
    const p = record.content;
    if (!p) return;
    p.answered = true;
    p.output = output;
  }

  /** A stream is being relayed: its meter, also feeding a transcript of the upstream's events. */
  tapStream(record: RequestRecord, meter: StreamMeter, wire: WireFormat): StreamMeter {
    const p = record.content;
    if (!p) return meter;
    p.answered = true;
    p.transcript = wire.transcript();
    return new TappedMeter(meter, p.transcript);
  }

  /** The request's finish: its content, also written as one log line; null when none was kept. */
  finish(record: RequestRecord, job: RequestLogJob): CapturedContent | null {
    const p = record.content;
    if (!p) return null;
    record.content = null;
    let content: CapturedContent;
    try {
      content = bounded(p);
    } catch (err) {
      // Capture must never fail a request: a reader's bug costs this request's content only.
      this.logger.warn(`content capture failed for ${record.requestId}: ${(err as Error).message}`);
      return null;
    }
    // Named here rather than left to the logger's context, which a stream's end may not carry.
    const traceId = requestSpan(record.requestId)?.spanContext().traceId;
    this.logger.log({
      msg: 'gen_ai content',
      request_id: record.requestId,
      ...(traceId ? { trace_id: traceId } : {}),
      [ATTR.operation]: genAiOperation(job.endpoint),
      [ATTR.endpoint]: job.endpoint,
      [ATTR.requestModel]: job.model,
      [ATTR.providerId]: job.providerId,
      [ATTR.httpStatus]: job.status,
      ...contentAttributes(content),
    });
    return content;
  }
}

/** The conventions' opt-in attributes, as JSON strings. */
export function contentAttributes(c: CapturedContent): Attributes {
  return {
    ...(c.system === null ? {} : { [ATTR.systemInstructions]: c.system }),
    [ATTR.inputMessages]: c.input,
    ...(c.output === null ? {} : { [ATTR.outputMessages]: c.output }),
  };
}

function bounded(p: CapturedExchange): CapturedContent {
  const input = p.api.inputContent(p.body);
  const output = p.transcript?.messages() ?? p.output;
  return {
    system: input.system === null ? null : boundedJson(input.system),
    input: boundedJson(input.messages),
    output: output === null ? null : boundedJson(output),
    answered: p.answered,
  };
}

/** A stream's meter that also feeds every payload to a transcript: the relay stays as it is. */
class TappedMeter implements StreamMeter {
  constructor(
    private readonly inner: StreamMeter,
    private readonly transcript: StreamTranscript,
  ) {}

  see(data: string): boolean {
    try {
      this.transcript.push(data);
    } catch {
      // The readers never throw on odd input; should one, the client's stream must not notice.
    }
    return this.inner.see(data);
  }

  get completed(): boolean {
    return this.inner.completed;
  }
  get usage(): StreamMeter['usage'] {
    return this.inner.usage;
  }
  get usageFinal(): boolean {
    return this.inner.usageFinal;
  }
  facts(): ReturnType<StreamMeter['facts']> {
    return this.inner.facts();
  }
}
