// The provider form's controls: the settings of the chosen type shown and required, the
// credential chosen (a key typed here, an env var, or the type's own keyless credential), and the
// entry they describe, keeping whatever else the entry had (fields this form does not edit). The
// types, their settings and rules come from the console (provider-types.js): none is named here.
import { field, h, replace } from '../dom.js';
import { pairsEditor } from './config-common.js';
import { typeOf } from './provider-types.js';
import { settingsBlock } from './setting-fields.js';

/** The common entry fields this form edits; with each type's settings, the fields it owns. */
const COMMON = [
  'id',
  'type',
  'base_url',
  'api_key_env',
  'api_key_secret',
  'enabled',
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

/** The credential choices a type offers: keys (typed or from the env) when it takes them, else only its own. */
function credentialChoices(view) {
  const keyless = view?.ambient?.long ?? 'No key (a local server)';
  if (view && !view.keys.allowed) return [['none', keyless]];
  return [
    ['secret', 'A key typed here, stored encrypted'],
    ['env', 'A key in an environment variable'],
    ['none', keyless],
  ];
}

/** The previous choice if the type offers it, else the entry's own, else the first offered. */
function chosenCredential(choices, previous, initial) {
  const offered = (v) => choices.some(([choice]) => choice === v);
  return offered(previous) ? previous : offered(initial) ? initial : choices[0][0];
}

/** The common fields' controls, filled from the entry `p`. */
function commonControls(p, types) {
  const known = typeOf(types, p.type) ? [] : [[p.type, p.type]];
  return {
    id: text(p.id, { required: true, pattern: '[a-z0-9][a-z0-9_\\-]*', maxlength: '100' }),
    type: select([...types.map((t) => [t.type, `${t.type} (${t.label})`]), ...known], p.type),
    baseUrl: h('input', { type: 'url', value: p.base_url ?? '', placeholder: 'https://api.example.com/v1' }),
    credential: h('select', {}),
    key: h('input', { type: 'password', autocomplete: 'new-password', spellcheck: 'false' }),
    env: text(p.api_key_env, { placeholder: 'PROVIDER_API_KEY', pattern: '[A-Z_][A-Z0-9_]*' }),
    priority: number(p.priority ?? 0, { min: '0', step: '1' }),
    weight: number(p.weight ?? 1, { min: '0', step: 'any' }),
    enabled: h('input', { type: 'checkbox', checked: p.enabled !== false }),
    probePath: text(p.probe_path, { placeholder: '/models' }),
    maxConcurrency: number(p.limits?.max_concurrency, { min: '1', step: '1' }),
    rpm: number(p.limits?.rpm, { min: '1', step: '1' }),
  };
}

function servedEditor(p, st) {
  const listId = `draft-models-${Math.random().toString(36).slice(2)}`;
  const list = h(
    'datalist',
    { id: listId },
    st.draft.models.map((m) => h('option', { value: m.id })),
  );
  const editor = pairsEditor({
    legend: 'Models served',
    labels: ['Served model', 'Upstream ID'],
    placeholders: ['model id (as clients call it)', 'the vendor’s id, if another'],
    rows: servedRows(p.models),
    list: listId,
    hint: 'Each model clients may call through this provider; the upstream ID when the vendor names it differently.',
  });
  return { ...editor, list };
}

/** The base URL's hint: what it is, and for a type that derives it, that it is an override. */
const baseUrlHint = (view) =>
  view && !view.baseUrlRequired
    ? 'Optional: derived from the settings above; set it for a private endpoint.'
    : 'The API base as the vendor’s own SDK takes it.';

const putIfSet = (e, key, value) => {
  if (value !== '') e[key] = value;
};

/** Where the entry `e` sends requests and with which credential, from the controls. */
function putEndpoint(e, c, original) {
  putIfSet(e, 'base_url', c.baseUrl.value.trim());
  if (c.credential.value === 'env') putIfSet(e, 'api_key_env', c.env.value.trim());
  if (c.credential.value === 'secret' && original?.api_key_secret) e.api_key_secret = original.api_key_secret;
}

/** How the entry `e` is routed to, probed and limited; a default is written only over one the entry had. */
function putRouting(e, c, original, view) {
  const priority = Number(c.priority.value || 0);
  const weight = Number(c.weight.value || 1);
  if (priority !== 0 || original?.priority !== undefined) e.priority = priority;
  if (weight !== 1 || original?.weight !== undefined) e.weight = weight;
  if (!c.enabled.checked) e.enabled = false;
  else if (original?.enabled !== undefined) e.enabled = true;
  if (view?.probePath !== false) putIfSet(e, 'probe_path', c.probePath.value.trim());
  const limits = {
    ...(c.maxConcurrency.value && { max_concurrency: Number(c.maxConcurrency.value) }),
    ...(c.rpm.value && { rpm: Number(c.rpm.value) }),
  };
  if (Object.keys(limits).length) e.limits = limits;
}

/**
 * The form's controls, bound to one entry; `entry()` builds the entry they describe. `types`: the
 * provider types as the console describes them (provider-types.js), in the select's order.
 */
export function providerForm(original, st, types) {
  const p = original ?? { type: types[0]?.type, models: [] };
  const c = commonControls(p, types);
  const served = servedEditor(p, st);
  // One block per type, each filled only from an entry of its type: switching back finds it as left.
  const blocks = types.map((view) => ({
    type: view.type,
    ...settingsBlock(view, view.type === p.type ? p : null),
  }));
  const owned = new Set([...COMMON, ...blocks.flatMap((b) => b.names)]);
  const storedHint = p.api_key_secret ? (st.hints[p.api_key_secret] ?? 'stored key') : null;
  c.key.placeholder = storedHint
    ? `Stored: ${storedHint}. Type a new key to replace it.`
    : 'The vendor’s API key';

  const f = {
    baseUrl: field('Base URL', c.baseUrl, baseUrlHint(typeOf(types, p.type))),
    key: field(
      'API key',
      c.key,
      'Stored encrypted when you keep this provider; shown afterwards only as its hint.',
    ),
    env: field('Environment variable', c.env, 'Its value is read by every app from its environment.'),
    probePath: field('Probe path', c.probePath, 'Relative to the base URL; a cheap, unbilled model listing.'),
  };
  const baseUrlHintEl = f.baseUrl.querySelector('.hint');

  const sync = () => {
    const view = typeOf(types, c.type.value);
    const choices = credentialChoices(view);
    const previous = c.credential.value;
    const initial = p.api_key_secret ? 'secret' : p.api_key_env ? 'env' : original ? 'none' : 'secret';
    replace(c.credential, ...choices.map(([v, label]) => h('option', { value: v }, label)));
    c.credential.value = chosenCredential(choices, previous, initial);
    for (const b of blocks) b.show(b.type === c.type.value);
    f.probePath.hidden = view?.probePath === false;
    c.baseUrl.required = view?.baseUrlRequired !== false;
    if (baseUrlHintEl) baseUrlHintEl.textContent = baseUrlHint(view);
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
    const e = Object.fromEntries(Object.entries(original ?? {}).filter(([k]) => !owned.has(k)));
    e.id = c.id.value.trim();
    e.type = type;
    const block = blocks.find((b) => b.type === type);
    // A type the console does not know keeps its own settings as the entry had them.
    if (block) Object.assign(e, Object.fromEntries(block.values()));
    putEndpoint(e, c, original);
    e.models = served.value().map(([id, upstream]) => (upstream && upstream !== id ? { id, upstream } : id));
    putRouting(e, c, original, typeOf(types, type));
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
    f.baseUrl,
    blocks.map((b) => b.el),
    field('Credential', c.credential),
    f.key,
    f.env,
    served.el,
    served.list,
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
