// The client's read-only copy of the server's view models, plus the version
// cursor. Nothing here decides anything: it only applies what the server sent.

import { applyPatch } from './patch.js';

/** How many past versions to remember, to recognise late duplicates. */
const HISTORY = 64;

export class Replica {
  version = null;
  views = {};
  #seen = [];
  #listeners = new Set();

  /** `listener(event)` runs after every change; event.kind is snapshot | patch | reset | dispatch. */
  subscribe(listener) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Forgets everything: a new session's versions have nothing to do with the old one's. */
  clear() {
    this.version = null;
    this.views = {};
    this.#seen = [];
  }

  /** A full picture: replaces everything (session snapshot, SSE `snapshot`). */
  applySnapshot({ version, views }, kind = 'snapshot') {
    this.views = { ...views };
    this.#moveTo(version);
    this.#emit({ kind, to: version, views });
  }

  /**
   * A dispatch answer carries full views; apply them unless a newer change already arrived (one event may
   * cover several versions: a chat message delivered right after the post that sent it, say).
   */
  applyDispatch({ version, views }) {
    if (version === this.version || this.#seen.includes(version) || isBehind(version, this.version)) return;
    this.views = { ...this.views, ...views };
    this.#moveTo(version);
    this.#emit({ kind: 'dispatch', to: version, views });
  }

  /**
   * An incremental change `{from, to, views: {name: {patch} | {full}}}`.
   * Returns 'applied', 'ignored' (already had it) or 'stale' (the caller must refetch).
   * A patch that cannot be applied also answers 'stale': a refetch heals it.
   */
  applyChange({ from, to, views = {} }) {
    if (from !== this.version) {
      return to === this.version || this.#seen.includes(to) ? 'ignored' : 'stale';
    }
    let next;
    try {
      next = applyEntries(this.views, views);
    } catch (error) {
      console.warn('remvvm: patch failed, refetching', error);
      return 'stale';
    }
    this.views = next;
    this.#moveTo(to);
    if (Object.keys(views).length) this.#emit({ kind: 'patch', from, to, views });
    return 'applied';
  }

  /** A reset (expired cursor, new epoch, cursor ahead): the given full views win, whatever our version. */
  applyReset({ reason, to, views = {} }) {
    this.views = applyEntries(this.views, views);
    this.#seen = [];
    this.#moveTo(to);
    this.#emit({ kind: 'reset', reason, to, views });
  }

  #moveTo(version) {
    if (this.version !== null && this.version !== version) {
      this.#seen.push(this.version);
      if (this.#seen.length > HISTORY) this.#seen.shift();
    }
    this.version = version;
  }

  #emit(event) {
    for (const listener of this.#listeners) listener(event, this);
  }
}

/** Whether cursor `a` (`<epoch>.<n>`) is an older version of the same history as `b`. */
function isBehind(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const [epochA, numberA] = [a.slice(0, a.lastIndexOf('.')), a.slice(a.lastIndexOf('.') + 1)];
  const [epochB, numberB] = [b.slice(0, b.lastIndexOf('.')), b.slice(b.lastIndexOf('.') + 1)];
  return epochA === epochB && /^\d+$/.test(numberA) && /^\d+$/.test(numberB) && BigInt(numberA) < BigInt(numberB);
}

/** Applies `{name: {patch: ops} | {full: vm}}` entries to a copy of `views`. */
function applyEntries(views, entries) {
  const next = { ...views };
  for (const [name, entry] of Object.entries(entries)) {
    if (entry && 'full' in entry) next[name] = entry.full;
    else if (entry && 'patch' in entry) next[name] = applyPatch(next[name] ?? {}, entry.patch);
  }
  return next;
}
