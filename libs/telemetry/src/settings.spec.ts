import { describe, expect, it } from '@jest/globals';
import { parseKeyValues, TelemetryConfigError, telemetrySettings, tracesOn } from './settings.js';

describe('telemetrySettings', () => {
  it('with nothing set: tracing off, Prometheus on, no OTLP push, default service name', () => {
    const s = telemetrySettings({}, 'edge');
    expect(s.serviceName).toBe('gateway-edge');
    expect(s.traces.otlp).toBeNull();
    expect(tracesOn(s)).toBe(false);
    expect(s.metrics).toEqual({ prometheus: true, otlp: null, exportIntervalMs: 60_000 });
    expect(s.traces.sampler).toBe('parentbased_always_on');
  });

  it('an OTLP endpoint turns traces and metric push on, with the signal paths appended', () => {
    const s = telemetrySettings(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/', OTEL_EXPORTER_OTLP_HEADERS: 'x-token=a%20b' },
      'worker',
    );
    expect(s.traces.otlp).toEqual({ url: 'http://collector:4318/v1/traces', headers: { 'x-token': 'a b' } });
    expect(s.metrics.otlp?.url).toBe('http://collector:4318/v1/metrics');
    expect(tracesOn(s)).toBe(true);
  });

  it('a signal endpoint is used as is and its headers win', () => {
    const s = telemetrySettings(
      {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://tempo:4318/custom',
        OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=3',
      },
      'edge',
    );
    expect(s.traces.otlp).toEqual({ url: 'http://tempo:4318/custom', headers: { a: '1', b: '3' } });
    expect(s.metrics.otlp).toBeNull();
  });

  it('OTEL_SDK_DISABLED=true wins over everything', () => {
    const s = telemetrySettings(
      { OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' },
      'edge',
    );
    expect(s.disabled).toBe(true);
    expect(s.traces.otlp).toBeNull();
    expect(s.metrics.prometheus).toBe(false);
    expect(tracesOn(s)).toBe(false);
  });

  it('exporter lists: none, console, prometheus left out', () => {
    const none = telemetrySettings(
      { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c' },
      'e',
    );
    expect(tracesOn(none)).toBe(false);
    const console = telemetrySettings({ OTEL_TRACES_EXPORTER: 'console' }, 'e');
    expect(console.traces.console).toBe(true);
    expect(tracesOn(console)).toBe(true);
    const otlpOnly = telemetrySettings({ OTEL_METRICS_EXPORTER: 'otlp' }, 'e');
    expect(otlpOnly.metrics.prometheus).toBe(false);
    expect(otlpOnly.metrics.otlp?.url).toBe('http://localhost:4318/v1/metrics');
  });

  it('service name: OTEL_SERVICE_NAME, then service.name in OTEL_RESOURCE_ATTRIBUTES', () => {
    expect(
      telemetrySettings({ OTEL_RESOURCE_ATTRIBUTES: 'service.name=gw,deployment.environment=prod' }, 'e'),
    ).toMatchObject({ serviceName: 'gw', resourceAttributes: { 'deployment.environment': 'prod' } });
    expect(
      telemetrySettings({ OTEL_SERVICE_NAME: 'edge-eu', OTEL_RESOURCE_ATTRIBUTES: 'service.name=gw' }, 'e')
        .serviceName,
    ).toBe('edge-eu');
  });

  it('samplers and their ratio; always_off means no tracing work at all', () => {
    const s = telemetrySettings(
      {
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_TRACES_EXPORTER: 'console',
      },
      'e',
    );
    expect(s.traces).toMatchObject({ sampler: 'parentbased_traceidratio', samplerRatio: 0.25 });
    expect(
      tracesOn(
        telemetrySettings({ OTEL_TRACES_SAMPLER: 'always_off', OTEL_TRACES_EXPORTER: 'console' }, 'e'),
      ),
    ).toBe(false);
  });

  it.each([
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER: unsupported sampler "sometimes"/],
    [{ OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG: expected a ratio/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER: unsupported exporter "zipkin"/],
    [{ OTEL_METRIC_EXPORT_INTERVAL: '-5' }, /OTEL_METRIC_EXPORT_INTERVAL: expected a positive integer/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: not a URL/],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'novalue' }, /OTEL_RESOURCE_ATTRIBUTES: expected key=value pairs/],
  ])('a bad value fails naming the variable: %j', (vars, message) => {
    expect(() => telemetrySettings(vars, 'e')).toThrow(TelemetryConfigError);
    expect(() => telemetrySettings(vars, 'e')).toThrow(message);
  });

  it('message content capture: off by default, true/false in any case, off with the SDK disabled', () => {
    const capture = (v: string | undefined, extra: Record<string, string> = {}) =>
      telemetrySettings(
        { ...(v === undefined ? {} : { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: v }), ...extra },
        'edge',
      ).captureMessageContent;
    expect(capture(undefined)).toBe(false);
    expect(capture('true')).toBe(true);
    expect(capture(' TRUE ')).toBe(true);
    expect(capture('false')).toBe(false);
    expect(capture('True', { OTEL_SDK_DISABLED: 'true' })).toBe(false);
  });

  it.each(['yes please', '1', 'on', 'SPAN_ONLY'])(
    'a capture value other than true/false stops the app, even with the SDK disabled: %s',
    (value) => {
      const variants: Array<Record<string, string>> = [{}, { OTEL_SDK_DISABLED: 'true' }];
      for (const extra of variants) {
        expect(() =>
          telemetrySettings({ OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: value, ...extra }, 'e'),
        ).toThrow(
          new TelemetryConfigError(
            `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: expected true or false, got "${value}"`,
          ),
        );
      }
    },
  );

  it('an unsupported OTLP protocol is a warning, not a failure', () => {
    expect(telemetrySettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'e').warnings).toEqual([
      'OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported; exporting OTLP as http/json',
    ]);
  });

  it('parseKeyValues skips empty parts and keeps "=" inside values', () => {
    expect(parseKeyValues('a=b=c,, k = v ', 'X')).toEqual({ a: 'b=c', k: 'v' });
  });
});
