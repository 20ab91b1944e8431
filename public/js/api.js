// HTTP to the ReMVVM server: session creation and resumption, dispatch,
// snapshot and long-poll. Every request but creation carries the Bearer token;
// only EventSource (which cannot set headers) relies on the session cookie.

const STORAGE_KEY = 'remvvm.session';

/** A non-2xx answer; `status` tells "session gone" (404) from "server trouble" (5xx). */
export class HttpError extends Error {
  constructor(status, body) {
    // Errors come as RFC 9457 problem documents ({title, status, detail}).
    super(body?.detail || body?.title || body?.error || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** True when the server no longer knows this session (or its token): start a new one. */
export function isSessionGone(error) {
  return error instanceof HttpError && [401, 403, 404].includes(error.status);
}

export class Api {
  constructor(base = '') {
    this.base = base;
    this.session = loadSaved();
  }

  /** Creates a session and remembers it; the answer also sets the remvvm_token cookie for SSE. */
  async createSession() {
    const body = await this.#request('POST', '/v1/sessions', { auth: false, body: {} });
    this.session = { id: body.id, token: body.token };
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(this.session));
    } catch {
      // Private mode or a full quota: the session still works, it just won't survive a reload.
    }
    return body;
  }

  /** Full snapshot `{version, views}` of the current session. */
  snapshot() {
    return this.#request('GET', this.#sessionPath(''));
  }

  /** Sends one action; the answer holds results, the new version and full views. */
  dispatch(type, payload) {
    const body = payload === undefined ? { type } : { type, payload };
    return this.#request('POST', this.#sessionPath('/actions'), { body, timeout: 15_000 });
  }

  /** One long-poll round; the server holds it up to 25 s when nothing changed. */
  poll(since, signal) {
    const query = `?since=${encodeURIComponent(since ?? '')}&wait=25s`;
    return this.#request('GET', this.#sessionPath('/poll') + query, { signal, timeout: 40_000 });
  }

  eventsUrl(since) {
    const query = since ? `?since=${encodeURIComponent(since)}` : '';
    return this.base + this.#sessionPath('/events') + query;
  }

  #sessionPath(suffix) {
    if (!this.session) throw new HttpError(404, { error: 'no session' });
    return `/v1/sessions/${encodeURIComponent(this.session.id)}${suffix}`;
  }

  async #request(method, path, { body, auth = true, signal, timeout = 10_000 } = {}) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (auth && this.session) headers.Authorization = `Bearer ${this.session.token}`;
    // A hung request must not stall the sync loop forever: time out and retry.
    const timeoutSignal = AbortSignal.timeout(timeout);
    const response = await fetch(this.base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, timeoutSignal]) : timeoutSignal,
      cache: 'no-store',
      credentials: 'same-origin',
    });
    const text = await response.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = { error: text.slice(0, 200) };
    }
    if (!response.ok) throw new HttpError(response.status, json);
    return json;
  }
}

function loadSaved() {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY));
    return saved && typeof saved.id === 'string' && typeof saved.token === 'string' ? saved : null;
  } catch {
    return null;
  }
}
