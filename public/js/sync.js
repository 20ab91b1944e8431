// Keeps the replica up to date: Server-Sent Events when they work, long-poll
// when EventSource is missing or keeps failing. Either way the cursor is the
// replica's version, so a reconnect resumes where it left off.

import { isSessionGone } from './api.js';

/** Consecutive EventSource errors tolerated before falling back to long-poll. */
const SSE_FAILURES = 3;
/** How long long-poll runs before trying SSE again; doubles after each failed try. */
const SSE_RETRY_MS = 30_000;
const SSE_RETRY_MAX_MS = 5 * 60_000;
const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 10_000;

export class Sync {
  #run = 0; // bumping it retires every handler and loop of the previous run
  #source = null;
  #pollAbort = null;
  #refetching = null;
  #failures = 0;
  #sseRetryMs = SSE_RETRY_MS;
  #status = null;

  /**
   * @param {object} options
   * @param {import('./api.js').Api} options.api
   * @param {import('./replica.js').Replica} options.replica
   * @param {(status: string) => void} options.onStatus  connecting | live | reconnecting | long-poll
   * @param {(reason: string) => void} options.onSessionGone  the session was deleted or expired
   * @param {boolean} [options.forcePoll]  skip SSE (for tests and for debugging)
   */
  constructor({ api, replica, onStatus, onSessionGone, forcePoll = false }) {
    Object.assign(this, { api, replica, onStatus, onSessionGone });
    this.sseAvailable = typeof EventSource === 'function' && !forcePoll;
  }

  start() {
    this.stop();
    const run = this.#run;
    this.#failures = 0;
    this.#setStatus('connecting');
    if (this.sseAvailable) this.#openSse(run);
    else this.#pollLoop(run, true); // the snapshot turns the status to long-poll at once
  }

  stop() {
    this.#run++;
    this.#source?.close();
    this.#source = null;
    this.#pollAbort?.abort();
    this.#pollAbort = null;
  }

  /** Replaces the replica with a fresh snapshot; concurrent calls share one request. */
  refetch() {
    this.#refetching ??= this.api
      .snapshot()
      .then((snapshot) => this.replica.applySnapshot(snapshot))
      .catch((error) => {
        if (isSessionGone(error)) this.#gone('deleted');
        else console.warn('remvvm: refetch failed', error);
      })
      .finally(() => {
        this.#refetching = null;
      });
    return this.#refetching;
  }

  #openSse(run) {
    const source = new EventSource(this.api.eventsUrl(this.replica.version));
    this.#source = source;
    const on = (type, handle) =>
      source.addEventListener(type, (event) => {
        if (run !== this.#run) return;
        try {
          handle(JSON.parse(event.data));
        } catch (error) {
          console.warn(`remvvm: bad ${type} event`, error);
          this.refetch();
        }
      });
    source.onopen = () => {
      if (run !== this.#run) return;
      this.#failures = 0;
      this.#sseRetryMs = SSE_RETRY_MS;
      this.#setStatus('live');
    };
    on('snapshot', (data) => this.replica.applySnapshot(data));
    on('patch', (data) => {
      if (this.replica.applyChange(data) === 'stale') this.refetch();
    });
    on('reset', (data) => this.replica.applyReset(data));
    on('end', ({ reason }) => {
      source.close();
      // The server stopped, or another node took the session over: the session lives on, so reconnect.
      if (reason === 'shutdown' || reason === 'moved') this.#fallBack(run);
      else this.#gone(reason);
    });
    source.onerror = () => {
      if (run !== this.#run) return;
      this.#failures++;
      this.#setStatus('reconnecting');
      // CLOSED means the browser gave up (a 401, 404 or non-SSE answer); otherwise it
      // reconnects by itself, sending Last-Event-ID, and we give it a few tries.
      if (source.readyState === EventSource.CLOSED || this.#failures >= SSE_FAILURES) {
        source.close();
        this.#fallBack(run);
      }
    };
  }

  #fallBack(run) {
    this.#source = null;
    this.#setStatus('reconnecting');
    this.#pollLoop(run, true);
  }

  async #pollLoop(run, refetchFirst) {
    let needSnapshot = refetchFirst;
    let backoff = 0;
    const sseAt = Date.now() + this.#sseRetryMs;
    while (run === this.#run) {
      try {
        if (needSnapshot) {
          // A snapshot proves the server is reachable again, so the status can say so
          // at once instead of after a quiet 25 s poll.
          this.replica.applySnapshot(await this.api.snapshot());
          if (run !== this.#run) return;
          needSnapshot = false;
          this.#setStatus('long-poll');
        }
        this.#pollAbort = new AbortController();
        const answer = await this.api.poll(this.replica.version, this.#pollAbort.signal);
        if (run !== this.#run) return;
        this.#setStatus('long-poll');
        backoff = 0;
        if (answer.reset) this.replica.applyReset(answer);
        else if (this.replica.applyChange(answer) === 'stale') needSnapshot = true;
        if (this.sseAvailable && Date.now() >= sseAt) {
          // Try SSE again; one error sends us straight back here.
          this.#sseRetryMs = Math.min(this.#sseRetryMs * 2, SSE_RETRY_MAX_MS);
          this.#failures = SSE_FAILURES - 1;
          this.#openSse(run);
          return;
        }
      } catch (error) {
        if (run !== this.#run) return;
        if (isSessionGone(error)) return this.#gone('deleted');
        this.#setStatus('reconnecting');
        needSnapshot = true;
        backoff = Math.min(backoff ? backoff * 2 : BACKOFF_MIN_MS, BACKOFF_MAX_MS);
        await sleep(backoff * (0.75 + Math.random() / 2)); // jitter: many tabs, one server
      }
    }
  }

  #gone(reason) {
    this.stop();
    this.onSessionGone(reason);
  }

  #setStatus(status) {
    if (status === this.#status) return;
    this.#status = status;
    this.onStatus(status);
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
