// The unidirectional flow made visible: actions going up (with their results
// and the version they produced) and view-model changes coming down.

import { byId, h, setText } from './dom.js';

const KEEP = 20;
const STORAGE_KEY = 'remvvm.inspector';

export function mountInspector(replica) {
  const panel = byId('inspector');
  const toggle = byId('btn-inspector');
  const version = byId('inspector-version');
  const actions = byId('inspector-actions');
  const patches = byId('inspector-patches');

  // Open by default on wide screens only; then remember the user's choice.
  let open = localStorage.getItem(STORAGE_KEY) ?? String(matchMedia('(min-width: 960px)').matches);
  const show = (value) => {
    open = value;
    panel.hidden = open !== 'true';
    toggle.setAttribute('aria-expanded', open);
  };
  show(open);
  toggle.addEventListener('click', () => {
    show(String(open !== 'true'));
    localStorage.setItem(STORAGE_KEY, open);
    // On a phone the panel opens below the app: take the user (and focus) there.
    if (open === 'true') byId('inspector-heading').focus();
  });

  replica.subscribe((event) => {
    setText(version, replica.version ?? '–');
    if (event.kind === 'dispatch') return; // already listed with its action
    if (event.kind === 'patch') {
      for (const [name, entry] of Object.entries(event.views)) {
        prepend(patches, entryItem(name, `${event.from} → ${event.to}`, entry.patch ?? { full: entry.full }));
      }
    } else {
      const label = event.kind === 'reset' ? `reset (${event.reason})` : event.kind;
      prepend(patches, entryItem(label, `→ ${event.to}`, Object.keys(event.views ?? {})));
    }
  });

  /** Lists an action as sent; call the returned function with its outcome. */
  return function recordAction(type, payload) {
    const result = h('span', { class: 'badge pending' }, 'sending…');
    const after = h('span', {}, '…');
    prepend(actions, entryItem(type, after, payload ?? null, result));
    return ({ blocked, error, version: to }) => {
      result.className = `badge ${blocked ? 'blocked' : error ? 'failed' : 'applied'}`;
      setText(result, blocked ? `blocked: ${blocked}` : error ? `failed: ${error}` : 'applied');
      setText(after, to ? `→ ${to}` : '');
    };
  };
}

function entryItem(title, detail, json, badge) {
  return h(
    'li',
    {},
    h('div', { class: 'log-head' }, h('strong', {}, title), badge ?? null),
    h('code', { class: 'log-versions' }, detail),
    json === null ? null : h('code', { class: 'log-json' }, JSON.stringify(json)),
  );
}

function prepend(list, item) {
  list.prepend(item);
  while (list.children.length > KEEP) list.lastElementChild.remove();
}
