// Wires the pieces: session bootstrap, the dispatch queue, sync, and the
// renderers. State never lives here; it is the replica of the server's views.

import { Api, isSessionGone } from './api.js';
import { byId, setText } from './dom.js';
import { mountInspector } from './inspector.js';
import { Replica } from './replica.js';
import { Sync } from './sync.js';
import { mountCounter } from './views/counter.js';
import { mountLogin } from './views/login.js';
import { mountModal } from './views/modal.js';
import { mountNavigation } from './views/navigation.js';
import { mountQuote } from './views/quote.js';
import { mountChat } from './views/chat.js';

const STATUS_TEXT = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  'long-poll': 'Live (long-poll)',
};

// Module state, declared before boot() runs below.
let queue = Promise.resolve(); // dispatch order
let booting = null; // the boot in progress, shared by concurrent callers

const api = new Api();
const replica = new Replica();
const sync = new Sync({
  api,
  replica,
  onStatus: showStatus,
  onSessionGone: (reason) => {
    notify(`The session was ${reason === 'expired' ? 'expired' : 'ended'} by the server; starting a new one.`);
    boot(true);
  },
  // ?transport=poll forces long-poll, to try it (and test it) without breaking SSE.
  forcePoll: new URLSearchParams(location.search).get('transport') === 'poll',
});

const recordAction = mountInspector(replica);
const renderers = [mountNavigation, mountModal, mountCounter, mountLogin, mountQuote, mountChat].map((mount) => mount(dispatch));
const version = byId('version');
replica.subscribe(() => {
  setText(version, replica.version ?? '–');
  for (const render of renderers) render(replica.views);
});

byId('btn-notice-close').addEventListener('click', () => (byId('notice').hidden = true));
boot(false);

/**
 * Sends one action. Actions are queued so that the server sees them in click order.
 * Resolves to {blocked, error, version}; a blocked reason is shown in the notice bar
 * unless the caller shows it itself (`quiet`).
 */
function dispatch(type, payload, { quiet = false } = {}) {
  const done = recordAction(type, payload);
  const run = async () => {
    let outcome;
    try {
      if (booting) await booting; // a click during start-up waits for the session
      const answer = await api.dispatch(type, payload);
      replica.applyDispatch(answer);
      const blocked = (answer.results ?? []).find((result) => result?.blocked)?.blocked ?? null;
      outcome = { blocked, error: null, version: answer.version };
    } catch (error) {
      outcome = { blocked: null, error: describe(error), version: null };
      if (isSessionGone(error)) boot(true);
    }
    done(outcome);
    if (!quiet && (outcome.blocked || outcome.error)) notify(outcome.blocked ?? outcome.error);
    else if (!outcome.blocked && !outcome.error) byId('notice').hidden = true;
    return outcome;
  };
  const result = queue.then(run);
  queue = result.catch(() => {});
  return result;
}

/** Resumes the saved session (or creates one), loads its snapshot, then starts syncing. */
async function boot(fresh) {
  if (booting) return booting;
  sync.stop();
  booting = (async () => {
    let backoff = 500;
    for (;;) {
      try {
        if (fresh || !api.session) await newSession();
        else {
          try {
            replica.applySnapshot(await api.snapshot());
          } catch (error) {
            if (!isSessionGone(error)) throw error;
            await newSession(); // the saved session is gone (expired, server restarted)
          }
        }
        break;
      } catch (error) {
        console.warn('remvvm: cannot reach the server', error);
        showStatus('reconnecting');
        await new Promise((resolve) => setTimeout(resolve, backoff));
        backoff = Math.min(backoff * 2, 10_000);
      }
    }
    sync.start();
  })().finally(() => {
    booting = null;
  });
  return booting;
}

async function newSession() {
  const created = await api.createSession();
  replica.clear();
  replica.applySnapshot(created.views && created.version ? created : await api.snapshot());
}

function showStatus(status) {
  const el = byId('connection-status');
  el.dataset.state = status;
  setText(el, STATUS_TEXT[status] ?? status);
}

function notify(text) {
  setText(byId('notice-text'), text);
  byId('notice').hidden = false;
}

function describe(error) {
  if (error?.name === 'TimeoutError') return 'the server did not answer in time';
  if (error?.status) return `server answered ${error.status}: ${error.message}`;
  return 'could not reach the server';
}
