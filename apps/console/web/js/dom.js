// DOM helpers. Every text goes through text nodes or attributes, never innerHTML, so nothing the
// API returns (key names, model ids, error messages) can inject markup.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** `h('button', { class: 'primary', onclick }, 'Save')` */
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A labelled form field: label, control, optional hint, all tied together by ids. */
let fieldSeq = 0;
export function field(label, control, hint) {
  const id = control.id || `f${++fieldSeq}`;
  control.id = id;
  const hintEl = hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hintEl);
}

/** A region announcing errors to screen readers; `.show(message)` / `.clear()`. */
export function errorBox() {
  const el = h('p', { class: 'error-box', role: 'alert', hidden: true });
  el.show = (message) => {
    el.textContent = message;
    el.hidden = false;
  };
  el.clear = () => {
    el.textContent = '';
    el.hidden = true;
  };
  return el;
}

export function toast(message) {
  const region = document.getElementById('toast');
  if (!region) return;
  const item = h('div', { class: 'toast' }, message);
  region.append(item);
  setTimeout(() => item.remove(), 3500);
}

/**
 * A modal `<dialog>`: Escape and the close button close it, focus returns to where it was. The
 * element is removed on close, so whatever it showed (a new key's secret) leaves the page.
 */
export function openDialog({ title, body, actions = [], wide = false, onClose }) {
  const previous = document.activeElement;
  const heading = h('h2', { id: `dlg${++fieldSeq}` }, title);
  const dialog = h(
    'dialog',
    { class: wide ? 'wide' : null, 'aria-labelledby': heading.id },
    h(
      'header',
      {},
      heading,
      h(
        'button',
        { type: 'button', class: 'icon', 'aria-label': 'Close', onclick: () => dialog.close() },
        '×',
      ),
    ),
    h('div', { class: 'dialog-body' }, body),
    actions.length ? h('footer', {}, actions) : null,
  );
  dialog.addEventListener('close', () => {
    dialog.remove();
    onClose?.();
    if (previous instanceof HTMLElement) previous.focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** Resolves true when the user confirms. */
export function confirmDialog({ title, message, confirmLabel, danger = false }) {
  return new Promise((resolve) => {
    let confirmed = false;
    const cancel = h('button', { type: 'button', onclick: () => dialog.close() }, 'Cancel');
    const ok = h(
      'button',
      {
        type: 'button',
        class: danger ? 'danger' : 'primary',
        onclick: () => {
          confirmed = true;
          dialog.close();
        },
      },
      confirmLabel,
    );
    const dialog = openDialog({
      title,
      body: h('p', {}, message),
      actions: [cancel, ok],
      onClose: () => resolve(confirmed),
    });
    cancel.focus();
  });
}

/** A button that shows a busy state while `action` runs and cannot be pressed twice. */
export async function busy(button, action) {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await action();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/** Copies text; falls back to selecting it when the clipboard API is unavailable (plain http). */
export async function copyText(text, selectable) {
  try {
    await navigator.clipboard.writeText(text);
    toast('Copied to the clipboard');
    return true;
  } catch {
    if (selectable && 'select' in selectable) selectable.select();
    toast('Press Ctrl+C (⌘C) to copy the selected text');
    return false;
  }
}

export function badge(text, kind) {
  return h('span', { class: `badge ${kind ?? ''}`.trim() }, text);
}

export function emptyRow(colspan, message) {
  return h('tr', { class: 'empty' }, h('td', { colspan }, message));
}
