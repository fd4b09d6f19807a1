// A provider type's own settings as form controls, rendered from their JSON Schema (the console's
// provider-types answer): text or URL inputs for strings, a select for an enum, a number input, a
// checkbox, rows of pairs for a record. A setting of another shape gets no control: the form
// leaves it as the entry has it.
import { field, h } from '../dom.js';
import { pairsEditor } from './config-common.js';
import { isRequired, settingsOf } from './provider-types.js';

const titleOf = (name, schema) => schema.title ?? name;

function textControl(name, schema, current) {
  const input = h('input', {
    type: schema.format === 'uri' ? 'url' : 'text',
    value: typeof current === 'string' ? current : '',
    autocomplete: 'off',
  });
  return {
    el: field(titleOf(name, schema), input, schema.description),
    input,
    value: () => input.value.trim() || undefined,
  };
}

function numberControl(name, schema, current) {
  const input = h('input', {
    type: 'number',
    value: typeof current === 'number' ? current : '',
    step: schema.type === 'integer' ? '1' : 'any',
  });
  return {
    el: field(titleOf(name, schema), input, schema.description),
    input,
    value: () => (input.value === '' ? undefined : Number(input.value)),
  };
}

/** An optional enum offers "not set" first: the entry then leaves it out and the type's default holds. */
function enumControl(name, schema, current, required) {
  const choices = [...(required ? [] : [['', '(not set)']]), ...schema.enum.map((v) => [v, v])];
  const input = h(
    'select',
    {},
    choices.map(([value, label]) => h('option', { value, selected: value === (current ?? '') }, label)),
  );
  return {
    el: field(titleOf(name, schema), input, schema.description),
    input,
    value: () => input.value || undefined,
  };
}

/** A checkbox writes `false` only over an entry that had the setting (unset and false may differ). */
function checkControl(name, schema, current) {
  const input = h('input', { type: 'checkbox', checked: current === true });
  return {
    el: h('label', { class: 'check', title: schema.description ?? '' }, input, titleOf(name, schema)),
    value: () => (input.checked ? true : current === undefined ? undefined : false),
  };
}

function pairsControl(name, schema, current) {
  const title = titleOf(name, schema);
  const editor = pairsEditor({
    legend: title,
    labels: [`${title} key`, `${title} value`],
    rows: Object.entries(current && typeof current === 'object' ? current : {}),
    hint: schema.description,
  });
  return {
    el: editor.el,
    wide: true,
    value: () => {
      const rows = editor.value();
      return rows.length ? Object.fromEntries(rows) : undefined;
    },
  };
}

function settingControl(name, schema, current, required) {
  if (Array.isArray(schema.enum)) return enumControl(name, schema, current, required);
  if (schema.type === 'string') return textControl(name, schema, current);
  if (schema.type === 'number' || schema.type === 'integer') return numberControl(name, schema, current);
  if (schema.type === 'boolean') return checkControl(name, schema, current);
  if (schema.type === 'object' && schema.additionalProperties) return pairsControl(name, schema, current);
  return null;
}

/**
 * The controls of one type's settings, filled from `entry` (null: empty). `show(on)` shows them and
 * makes the required ones required (a hidden block requires nothing, or the form could not submit);
 * `values()` gives the settings entered as [name, value] pairs; `names` the settings it edits.
 */
export function settingsBlock(view, entry) {
  const controls = settingsOf(view).flatMap(([name, schema]) => {
    const required = isRequired(view, name);
    const control = settingControl(name, schema, entry?.[name], required);
    return control ? [{ name, required, ...control }] : [];
  });
  const simple = controls.filter((c) => !c.wide).map((c) => c.el);
  const el = h(
    'div',
    { class: 'type-settings', dataset: { providerType: view.type } },
    simple.length ? h('div', { class: 'grid-2' }, simple) : null,
    controls.filter((c) => c.wide).map((c) => c.el),
  );
  return {
    el,
    names: controls.map((c) => c.name),
    show(on) {
      el.hidden = !on;
      for (const c of controls) if (c.input) c.input.required = on && c.required;
    },
    values: () =>
      controls.flatMap((c) => {
        const value = c.value();
        return value === undefined ? [] : [[c.name, value]];
      }),
  };
}
