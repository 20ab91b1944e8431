// Quote card: quote/load goes up, the `quote` view model comes back as
// loading first (in the dispatch answer) and as text or error ~300 ms later.

import { byId, h } from '../dom.js';

export function mountQuote(dispatch) {
  const category = byId('quote-category');
  const status = byId('quote-status');

  byId('quote-form').addEventListener('submit', (event) => {
    event.preventDefault();
    dispatch('quote/load', category.value ? { category: category.value } : undefined);
  });

  let shown = null;
  return (views) => {
    const quote = views.quote ?? {};
    const state = quote.loading ? 'loading' : quote.error ? 'error' : quote.text ? 'text' : 'idle';
    const key = `${state}\u0000${quote.text ?? ''}\u0000${quote.error ?? ''}`;
    if (key === shown) return; // untouched, so aria-live does not repeat itself
    shown = key;
    status.dataset.state = state;
    status.setAttribute('aria-busy', String(state === 'loading'));
    status.replaceChildren(
      ...{
        loading: () => [h('span', { class: 'spinner', 'aria-hidden': 'true' }), h('span', { id: 'quote-loading' }, 'Loading…')],
        text: () => [h('blockquote', { id: 'quote-text', dataset: { testid: 'quote-text' } }, quote.text)],
        error: () => [h('p', { id: 'quote-error', class: 'error', dataset: { testid: 'quote-error' } }, `Could not load a quote: ${quote.error}`)],
        idle: () => [h('p', { class: 'muted' }, 'No quote yet.')],
      }[state](),
    );
  };
}
