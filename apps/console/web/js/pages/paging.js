// Lists read a page at a time (docs/console-api.md, Pagination): the server answers `limit`
// items and a `nextCursor` (null on the last page); "Load more" asks for the next page with it.
// Searches and filters go to the server: the browser never holds a whole list.
import { api } from '../api.js';
import { h } from '../dom.js';

/**
 * A paged list of `path`'s `key` items. `params()` gives the current search and filters;
 * `render(items)` draws every item loaded so far. `reload()` starts again from the first page
 * (after a change, or new filters); `more` is the "Load more" button, hidden on the last page.
 */
export function pagedList({ path, key, params = () => ({}), render, limit }) {
  let items = [];
  let cursor = null;
  const more = h(
    'button',
    { type: 'button', class: 'small', hidden: true, dataset: { more: key } },
    'Load more',
  );
  const load = async (append) => {
    const page = await api.get(path, { ...params(), limit, cursor: append ? cursor : undefined });
    items = append ? [...items, ...page[key]] : page[key];
    cursor = page.nextCursor ?? null;
    more.hidden = cursor === null;
    render(items);
    return items;
  };
  more.addEventListener('click', async () => {
    more.disabled = true;
    try {
      await load(true);
    } finally {
      more.disabled = false;
    }
  });
  return { reload: () => load(false), more, footer: h('div', { class: 'toolbar' }, more) };
}

/** A search box that asks the server as one types (debounced), and on Enter at once. */
export function searchBox({ label, placeholder, onSearch, value = '' }) {
  let timer;
  const input = h('input', { type: 'search', placeholder, value, 'aria-label': label, maxlength: '200' });
  const fire = () => {
    clearTimeout(timer);
    void onSearch(input.value.trim());
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(fire, 250);
  });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      fire();
    }
  });
  return input;
}

/**
 * An email field that offers the users whose email starts with what is typed (a server search,
 * 20 at most) and reports the chosen user's id: what a picker over every user would be, at any
 * number of users. `onPick(user | null)`.
 */
export function userPicker({ label, name, onPick, exclude = () => false, value = '' }) {
  const listId = `users-${name}-${Math.random().toString(36).slice(2, 8)}`;
  const list = h('datalist', { id: listId });
  let found = new Map();
  const input = h('input', {
    type: 'search',
    name,
    value,
    list: listId,
    placeholder: 'Type an email',
    autocomplete: 'off',
    'aria-label': label,
  });
  const search = async () => {
    const q = input.value.trim();
    const { users } = await api.get('/api/admin/users', { q: q || undefined, limit: 20 });
    found = new Map(users.filter((u) => !exclude(u)).map((u) => [u.email, u]));
    list.replaceChildren(...[...found.keys()].map((email) => h('option', { value: email })));
    return found;
  };
  let timer;
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void search(), 200);
  });
  input.addEventListener('change', async () => {
    const email = input.value.trim().toLowerCase();
    if (!email) return onPick(null);
    const user = found.get(email) ?? (await search()).get(email);
    onPick(user ?? null);
  });
  return h('span', { class: 'user-picker' }, input, list);
}
