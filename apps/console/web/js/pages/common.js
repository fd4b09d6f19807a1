// Pieces several pages share: the page header and the public (signed-out) card layout.
import { h } from '../dom.js';

export function pageHeader(title, subtitle, ...actions) {
  return h(
    'div',
    { class: 'page-header' },
    h(
      'div',
      {},
      h('h1', { tabindex: '-1' }, title),
      subtitle ? h('p', { class: 'subtitle' }, subtitle) : null,
    ),
    actions.length ? h('div', { class: 'page-actions' }, actions) : null,
  );
}

export function publicCard(title, ...children) {
  return h(
    'main',
    { id: 'main', class: 'public' },
    h(
      'section',
      { class: 'card auth-card' },
      h(
        'div',
        { class: 'brand large' },
        h('span', { class: 'brand-mark', 'aria-hidden': 'true' }),
        'Model gateway',
      ),
      h('h1', { tabindex: '-1' }, title),
      children,
    ),
  );
}

/** Only same-origin paths are followed after sign-in (an open redirect would aid phishing). */
export function safeNext(query) {
  const next = query.get('next');
  return next && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/sign-in')
    ? next
    : '/keys';
}

/**
 * What a key change means for the edges right now: `pending` when Redis could not be reached
 * (stored, announced by the console as soon as it can; until then edges may still accept the key).
 */
export function invalidationNote(invalidation) {
  return invalidation === 'pending'
    ? ' Edges have not been told yet (Redis unreachable): the console keeps announcing it, and edges may accept the key until then.'
    : '';
}
