/**
 * The standard OTEL_* variables, parsed into what this gateway does with them. Pure: `readEnv()`
 * hands the variables over, so nothing here reads `process.env`.
 *
 * Tracing is off unless an exporter is configured (an OTLP endpoint, or OTEL_TRACES_EXPORTER set
 * to otlp or console), so a plain `npm start` pays nothing for it. Metrics are always served on
 * `/metrics` (Prometheus text) and pushed over OTLP when an endpoint is set. OTEL_SDK_DISABLED=true
 * turns every signal off.
 */
export type SamplerKind =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface OtlpTarget {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

export interface TelemetrySettings {
  /** OTEL_SDK_DISABLED=true: no provider at all, the API's no-ops everywhere. */
  readonly disabled: boolean;
  readonly serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES, decoded; service.name among them is overridden by serviceName. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly traces: {
    readonly otlp: OtlpTarget | null;
    readonly console: boolean;
    readonly sampler: SamplerKind;
    /** The ratio of the traceidratio samplers, 0..1. */
    readonly samplerRatio: number;
  };
  readonly metrics: {
    /** Serve `/metrics`; off only when OTEL_METRICS_EXPORTER leaves prometheus out. */
    readonly prometheus: boolean;
    readonly otlp: OtlpTarget | null;
    readonly exportIntervalMs: number;
  };
  /**
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts and completions go on the
   * GenAI spans and into one log line per request. Off by default, and with the SDK disabled.
   */
  readonly captureMessageContent: boolean;
  /** Things set that we do not act on, to say once at boot (never fatal). */
  readonly warnings: readonly string[];
}

const DEFAULT_OTLP_BASE = 'http://localhost:4318';
const SAMPLERS: readonly SamplerKind[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** A bad value is a configuration error at boot, naming the variable, like a bad gateway.yaml. */
export class TelemetryConfigError extends Error {}

/** `OTEL_*` variables (as `Env.otel` holds them) to settings; `app` names the default service. */
export function telemetrySettings(vars: Readonly<Record<string, string>>, app: string): TelemetrySettings {
  const warnings: string[] = [];
  const disabled = vars.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  // Parsed even when disabled: a typo in a privacy switch must not wait for the SDK to be turned on.
  const capture = flag(
    vars.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
    'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
  );
  const resourceAttributes = parseKeyValues(vars.OTEL_RESOURCE_ATTRIBUTES, 'OTEL_RESOURCE_ATTRIBUTES');
  const serviceName = vars.OTEL_SERVICE_NAME ?? resourceAttributes['service.name'] ?? `gateway-${app}`;
  const protocol = vars.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && protocol !== 'http/json')
    warnings.push(`OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported; exporting OTLP as http/json`);

  const tracesExporters = exporterList(vars.OTEL_TRACES_EXPORTER, 'OTEL_TRACES_EXPORTER', [
    'otlp',
    'console',
    'none',
  ]);
  const tracesEndpointSet =
    vars.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined || vars.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  // The spec's default exporter is otlp; we only turn it on when someone said where to send to.
  const tracesOtlp = tracesExporters === null ? tracesEndpointSet : tracesExporters.includes('otlp');

  const metricsExporters = exporterList(vars.OTEL_METRICS_EXPORTER, 'OTEL_METRICS_EXPORTER', [
    'otlp',
    'prometheus',
    'none',
  ]);
  const metricsEndpointSet =
    vars.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT !== undefined || vars.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
  const metricsOtlp = metricsExporters === null ? metricsEndpointSet : metricsExporters.includes('otlp');

  return {
    disabled,
    serviceName,
    resourceAttributes,
    traces: {
      otlp: disabled || !tracesOtlp ? null : otlpTarget(vars, 'TRACES', 'v1/traces'),
      console: !disabled && (tracesExporters?.includes('console') ?? false),
      sampler: sampler(vars.OTEL_TRACES_SAMPLER),
      samplerRatio: ratio(vars.OTEL_TRACES_SAMPLER_ARG),
    },
    metrics: {
      prometheus: !disabled && (metricsExporters?.includes('prometheus') ?? true),
      otlp: disabled || !metricsOtlp ? null : otlpTarget(vars, 'METRICS', 'v1/metrics'),
      exportIntervalMs: positiveInt(vars.OTEL_METRIC_EXPORT_INTERVAL, 60_000, 'OTEL_METRIC_EXPORT_INTERVAL'),
    },
    captureMessageContent: !disabled && capture,
    warnings,
  };
}

/** Whether any span will ever be recorded: the hot path checks this once per service. */
export function tracesOn(s: TelemetrySettings): boolean {
  return !s.disabled && (s.traces.otlp !== null || s.traces.console) && s.traces.sampler !== 'always_off';
}

function otlpTarget(
  vars: Readonly<Record<string, string>>,
  signal: 'TRACES' | 'METRICS',
  path: string,
): OtlpTarget {
  const specific = vars[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`];
  // The signal's own endpoint is used as is; the general one gets the signal's path appended.
  const url =
    specific ?? `${(vars.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_OTLP_BASE).replace(/\/+$/, '')}/${path}`;
  try {
    new URL(url);
  } catch {
    throw new TelemetryConfigError(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT: not a URL: "${url}"`);
  }
  return {
    url,
    headers: {
      ...parseKeyValues(vars.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseKeyValues(vars[`OTEL_EXPORTER_OTLP_${signal}_HEADERS`], `OTEL_EXPORTER_OTLP_${signal}_HEADERS`),
    },
  };
}

/** W3C baggage-style `k=v,k2=v2`, values percent-encoded (OTEL_RESOURCE_ATTRIBUTES, *_HEADERS). */
export function parseKeyValues(raw: string | undefined, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  for (const part of raw.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    if (key === '') throw new TelemetryConfigError(`${name}: expected key=value pairs, got "${part.trim()}"`);
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw new TelemetryConfigError(`${name}: bad percent-encoding in the value of "${key}"`);
    }
  }
  return out;
}

function exporterList(raw: string | undefined, name: string, allowed: readonly string[]): string[] | null {
  if (raw === undefined) return null;
  const list = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  for (const item of list) {
    if (!allowed.includes(item))
      throw new TelemetryConfigError(`${name}: unsupported exporter "${item}" (use ${allowed.join(', ')})`);
  }
  return list;
}

function sampler(raw: string | undefined): SamplerKind {
  if (raw === undefined) return 'parentbased_always_on';
  const s = raw.trim().toLowerCase();
  if (!(SAMPLERS as readonly string[]).includes(s))
    throw new TelemetryConfigError(
      `OTEL_TRACES_SAMPLER: unsupported sampler "${raw}" (use ${SAMPLERS.join(', ')})`,
    );
  return s as SamplerKind;
}

function ratio(raw: string | undefined): number {
  if (raw === undefined) return 1;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new TelemetryConfigError(`OTEL_TRACES_SAMPLER_ARG: expected a ratio from 0 to 1, got "${raw}"`);
  return n;
}

/**
 * A boolean variable. The OTel spec reads anything but `true` as false; for a switch that decides
 * whether users' prompts are recorded, `1` or `yes` silently meaning "off" (or a later reader
 * taking them as "on") is worse than refusing to start.
 */
function flag(raw: string | undefined, name: string): boolean {
  if (raw === undefined) return false;
  const v = raw.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new TelemetryConfigError(`${name}: expected true or false, got "${raw}"`);
}

function positiveInt(raw: string | undefined, fallback: number, name: string): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new TelemetryConfigError(`${name}: expected a positive integer (milliseconds), got "${raw}"`);
  return n;
}
