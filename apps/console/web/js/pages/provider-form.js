// The provider form's controls: the settings of the chosen type shown and required, the
// credential chosen (a key typed here, an env var, or the type's own keyless credential), and the
// entry they describe, keeping whatever else the entry had (fields this form does not edit).
import { field, h, replace } from '../dom.js';
import { pairsEditor } from './config-common.js';

const TYPES = [
  'openai',
  'openai-compatible',
  'perplexity',
  'anthropic',
  'gemini',
  'azure-openai',
  'vertex',
  'bedrock',
];
const VENDORS = ['generic', 'deepseek', 'groq'];

/** How a provider of these types authenticates without a key (from the apps' environment). */
export const KEYLESS = {
  'azure-openai': {
    short: 'Entra ID',
    long: 'Microsoft Entra ID (the apps’ environment or managed identity)',
  },
  vertex: {
    short: 'Google credentials',
    long: 'Google credentials (GOOGLE_APPLICATION_CREDENTIALS or the metadata server)',
  },
  bedrock: {
    short: 'AWS credentials (SigV4)',
    long: 'AWS credentials of the apps’ environment, each request signed (SigV4)',
  },
};

/** The entry fields this form owns; any other field of an entry (set in the file or the API) is kept. */
const OWNED = [
  'id',
  'type',
  'vendor',
  'base_url',
  'api_key_env',
  'api_key_secret',
  'enabled',
  'api_version',
  'deployments',
  'project',
  'location',
  'region',
  'control_plane_url',
  'models',
  'priority',
  'weight',
  'probe_path',
  'limits',
];

const text = (value, attrs = {}) =>
  h('input', { type: 'text', value: value ?? '', autocomplete: 'off', ...attrs });
const number = (value, attrs = {}) =>
  h('input', { type: 'number', value: value ?? '', inputmode: 'decimal', ...attrs });
const select = (options, selected) =>
  h(
    'select',
    {},
    options.map(([value, label]) => h('option', { value, selected: value === selected }, label)),
  );

function servedRows(models) {
  return (models ?? []).map((m) =>
    typeof m === 'string' ? [m, ''] : [m?.id ?? '', m?.upstream && m.upstream !== m.id ? m.upstream : ''],
  );
}

/** The form's controls, bound to one entry; `entry()` builds the entry they describe. */
export function providerForm(original, st) {
  const p = original ?? { type: 'openai', models: [] };
  const c = {
    id: text(p.id, { required: true, pattern: '[a-z0-9][a-z0-9_\\-]*', maxlength: '100' }),
    type: select(
      TYPES.map((t) => [t, t]),
      p.type,
    ),
    vendor: select(
      VENDORS.map((v) => [v, v]),
      p.vendor ?? 'generic',
    ),
    baseUrl: h('input', { type: 'url', value: p.base_url ?? '', placeholder: 'https://api.example.com/v1' }),
    apiVersion: text(p.api_version, { placeholder: '2024-10-21' }),
    region: text(p.region, { placeholder: 'us-east-1' }),
    controlPlane: h('input', { type: 'url', value: p.control_plane_url ?? '' }),
    project: text(p.project, { placeholder: 'my-project-123' }),
    location: text(p.location, { placeholder: 'us-east5' }),
    credential: h('select', {}),
    key: h('input', { type: 'password', autocomplete: 'new-password', spellcheck: 'false' }),
    env: text(p.api_key_env, { placeholder: 'OPENAI_API_KEY', pattern: '[A-Z_][A-Z0-9_]*' }),
    priority: number(p.priority ?? 0, { min: '0', step: '1' }),
    weight: number(p.weight ?? 1, { min: '0', step: 'any' }),
    enabled: h('input', { type: 'checkbox', checked: p.enabled !== false }),
    probePath: text(p.probe_path, { placeholder: '/models' }),
    maxConcurrency: number(p.limits?.max_concurrency, { min: '1', step: '1' }),
    rpm: number(p.limits?.rpm, { min: '1', step: '1' }),
  };
  const listId = `draft-models-${Math.random().toString(36).slice(2)}`;
  const modelList = h(
    'datalist',
    { id: listId },
    st.draft.models.map((m) => h('option', { value: m.id })),
  );
  const served = pairsEditor({
    legend: 'Models served',
    labels: ['Served model', 'Upstream ID'],
    placeholders: ['model id (as clients call it)', 'the vendor’s id, if another'],
    rows: servedRows(p.models),
    list: listId,
    hint: 'Each model clients may call through this provider; the upstream ID when the vendor names it differently.',
  });
  const deployments = pairsEditor({
    legend: 'Deployments',
    labels: ['Deployed model', 'Deployment'],
    placeholders: ['upstream model id', 'deployment name'],
    rows: Object.entries(p.deployments ?? {}),
    hint: 'Empty: the v1 URLs, with the model in the body. Else every served model needs its deployment.',
  });
  const storedHint = p.api_key_secret ? (st.hints[p.api_key_secret] ?? 'stored key') : null;
  c.key.placeholder = storedHint
    ? `Stored: ${storedHint}. Type a new key to replace it.`
    : 'The vendor’s API key';

  const f = {
    vendor: field('Vendor profile', c.vendor, 'What a translated request must leave out for this server.'),
    baseUrl: field('Base URL', c.baseUrl, 'The API base as the vendor’s own SDK takes it.'),
    azure: h('div', {}, field('API version', c.apiVersion, 'Required with deployments.'), deployments.el),
    bedrock: h(
      'div',
      { class: 'grid-2' },
      field('Region', c.region),
      field('Control plane URL', c.controlPlane, 'Optional: where the probe lists models (a VPC endpoint).'),
    ),
    vertex: h('div', { class: 'grid-2' }, field('Project', c.project), field('Location', c.location)),
    key: field(
      'API key',
      c.key,
      'Stored encrypted when you keep this provider; shown afterwards only as its hint.',
    ),
    env: field('Environment variable', c.env, 'Its value is read by every app from its environment.'),
    probePath: field('Probe path', c.probePath, 'Relative to the base URL; a cheap, unbilled model listing.'),
  };

  const sync = () => {
    const type = c.type.value;
    const previous = c.credential.value;
    const keyless = KEYLESS[type]?.long ?? 'No key (a local server)';
    const choices =
      type === 'vertex'
        ? [['none', keyless]]
        : [
            ['secret', 'A key typed here, stored encrypted'],
            ['env', 'A key in an environment variable'],
            ['none', keyless],
          ];
    const initial = p.api_key_secret ? 'secret' : p.api_key_env ? 'env' : original ? 'none' : 'secret';
    replace(c.credential, ...choices.map(([v, label]) => h('option', { value: v }, label)));
    c.credential.value = choices.some(([v]) => v === previous)
      ? previous
      : choices.some(([v]) => v === initial)
        ? initial
        : choices[0][0];
    f.vendor.hidden = type !== 'openai-compatible';
    f.azure.hidden = type !== 'azure-openai';
    f.bedrock.hidden = type !== 'bedrock';
    f.vertex.hidden = type !== 'vertex';
    f.probePath.hidden = type === 'bedrock';
    c.baseUrl.required = type !== 'vertex' && type !== 'bedrock';
    c.region.required = type === 'bedrock';
    c.project.required = c.location.required = type === 'vertex';
    syncCredential();
  };
  const syncCredential = () => {
    f.key.hidden = c.credential.value !== 'secret';
    f.env.hidden = c.credential.value !== 'env';
    c.env.required = c.credential.value === 'env';
    c.key.required = c.credential.value === 'secret' && storedHint === null;
  };
  c.type.addEventListener('change', sync);
  c.credential.addEventListener('change', syncCredential);
  sync();

  const entry = () => {
    const type = c.type.value;
    const e = Object.fromEntries(Object.entries(original ?? {}).filter(([k]) => !OWNED.includes(k)));
    e.id = c.id.value.trim();
    e.type = type;
    if (type === 'openai-compatible' && (c.vendor.value !== 'generic' || original?.vendor))
      e.vendor = c.vendor.value;
    const put = (key, value) => {
      if (value !== '') e[key] = value;
    };
    put('base_url', c.baseUrl.value.trim());
    if (type === 'azure-openai') {
      put('api_version', c.apiVersion.value.trim());
      const rows = deployments.value();
      if (rows.length) e.deployments = Object.fromEntries(rows);
    }
    if (type === 'bedrock') {
      put('region', c.region.value.trim());
      put('control_plane_url', c.controlPlane.value.trim());
    }
    if (type === 'vertex') {
      put('project', c.project.value.trim());
      put('location', c.location.value.trim());
    }
    if (c.credential.value === 'env') put('api_key_env', c.env.value.trim());
    if (c.credential.value === 'secret' && original?.api_key_secret)
      e.api_key_secret = original.api_key_secret;
    e.models = served.value().map(([id, upstream]) => (upstream && upstream !== id ? { id, upstream } : id));
    const priority = Number(c.priority.value || 0);
    const weight = Number(c.weight.value || 1);
    if (priority !== 0 || original?.priority !== undefined) e.priority = priority;
    if (weight !== 1 || original?.weight !== undefined) e.weight = weight;
    if (!c.enabled.checked) e.enabled = false;
    else if (original?.enabled !== undefined) e.enabled = true;
    if (type !== 'bedrock') put('probe_path', c.probePath.value.trim());
    const limits = {
      ...(c.maxConcurrency.value && { max_concurrency: Number(c.maxConcurrency.value) }),
      ...(c.rpm.value && { rpm: Number(c.rpm.value) }),
    };
    if (Object.keys(limits).length) e.limits = limits;
    return e;
  };
  const typedKey = () => (c.credential.value === 'secret' ? c.key.value : '');

  const fields = [
    h(
      'div',
      { class: 'grid-2' },
      field('ID', c.id, 'Lowercase letters, digits, - and _.'),
      field('Type', c.type),
    ),
    f.vendor,
    f.baseUrl,
    f.azure,
    f.bedrock,
    f.vertex,
    field('Credential', c.credential),
    f.key,
    f.env,
    served.el,
    modelList,
    h(
      'div',
      { class: 'grid-2' },
      field('Priority', c.priority, 'Lower first; the same priority shares by weight.'),
      field('Weight', c.weight),
    ),
    h('label', { class: 'check' }, c.enabled, 'Enabled: routed to, probed and listed'),
    h(
      'details',
      {},
      h('summary', {}, 'Probe and limits'),
      f.probePath,
      h(
        'div',
        { class: 'grid-2' },
        field('Max concurrency', c.maxConcurrency, 'Across every edge; empty: unlimited.'),
        field('Requests per minute', c.rpm, 'Across every edge; empty: unlimited.'),
      ),
    ),
  ];
  return { fields, entry, typedKey, hasStoredKey: storedHint !== null };
}
