/* fanout.c - fan-out latency client for long-polls and SSE streams (one thread, epoll).
 * Parks N subscribers, then changes the counter view with one dispatch (mode "one": all N subscribe to the
 * first session of the file) or with one dispatch per session (mode "many": subscriber i on session i),
 * or (mode "room") subscriber i polls the `chat` view of session i, every session a member of one chat room
 * (mksessions --join), and one chat/post on the first session reaches them all through the room's topic,
 * and measures, from just before the first dispatch is written, when each subscriber has its answer:
 *   poll: GET /v1/sessions/{id}/poll?views=counter&since={version}&wait=55s -> a complete HTTP response
 *   sse : GET /v1/sessions/{id}/events?views=counter -> the event marker ("event: patch") after the
 *         ready marker ("event: snapshot")
 * Requests carry "Authorization: Bearer {token}"; sessions come from a file of "id token version" lines
 * (see mksessions). It also samples the servers' RSS (from /proc) before, while parked and after, and their
 * CPU time (user + system, all threads) from the first dispatch to the last answer, also split into user and
 * system time, the client's own CPU time and the whole machine's (user, system, interrupts, idle, stolen) over
 * the same window.
 * usage: fanout poll|sse PORT SESSIONS N one|many|room [options]
 *   --ready PATH KEY   a gauge of parked subscribers: GET PATH, the number after KEY (else: wait until
 *                      the servers' CPU goes quiet)
 *   --pids P1,P2       server processes, for RSS and CPU
 *   --pub-conns K      connections the dispatches of mode "many" are spread over (default 32)
 *   --sse-ready S / --sse-event S   markers (defaults "event: snapshot" / "event: patch")
 *   --batch B          subscribers connected between two readiness checks (default 500)
 * Last line: "RESULT key=value ..." for the scripts. Exit 0 only when every subscriber got its answer.
 */
#include "benchnet.h"
#include <sys/epoll.h>

#define BUFSZ 4096
#define PUB_TAG 0x80000000u

enum { WAITING, READY, DONE, FAILED };

struct sub { int fd; int state; long len; char buf[BUFSZ]; };
struct pub { int fd; int next; long len; char buf[BUFSZ]; };

static int port, n, many, room, sse, pubconns = 32, batch = 500;
static const char *ready_path, *ready_key, *pids;
static const char *sse_ready = "event: snapshot", *sse_event = "event: patch";
static struct session *sessions;
static int nsessions;
static const char *body = "{\"type\":\"counter/increase\"}";
static const char *view = "counter";

/* Milliseconds of the machine's CPU time of one kind (see machine_ticks) between two readings; -1 if unread. */
static double machine_ms (int ok, const long *before, const long *after, int kind)
{
  return ok ? (double) (after[kind] - before[kind]) * 1000.0 / (double) sysconf (_SC_CLK_TCK) : -1.0;
}

static long parked_gauge (void) { return ready_path ? http_gauge (port, ready_path, ready_key) : -1; }

/* Waits until `want` subscribers are parked: by the gauge, else (SSE) by their ready markers, else by CPU. */
static long wait_parked (long want, int max_ms)
{
  double start = now_ms ();
  long g = -1;
  if (ready_path)
  {
    while ((g = parked_gauge ()) < want && now_ms () - start < max_ms) usleep (20000);
    return g;
  }
  if (pids) wait_quiet (pids, 300, max_ms);
  return -1;
}

/* SSE: moves a subscriber along WAITING -> READY -> DONE as the markers arrive. */
static void sse_advance (struct sub *s)
{
  const char *m = s->state == WAITING ? sse_ready : sse_event;
  const char *hit = memmem (s->buf, (size_t) s->len, m, strlen (m));
  if (NULL == hit)
  {
    if (s->len > BUFSZ / 2)                      /* keep a tail long enough for a split marker */
    {
      memmove (s->buf, s->buf + s->len - 64, 64);
      s->len = 64;
    }
    return;
  }
  {
    long rest = s->len - (long) (hit + strlen (m) - s->buf);
    memmove (s->buf, hit + strlen (m), (size_t) rest);
    s->len = rest;
  }
  s->state = s->state == WAITING ? READY : DONE;
  if (s->state == READY) sse_advance (s);
}

int main (int argc, char **argv)
{
  struct sub *subs;
  struct pub *pubs;
  double *lat, t0, tpub = -1, lastprog, cpu_ms = -1;
  int ep, done = 0, failed = 0, early = 0, non200 = 0, npub, pubdone = 0, pubfail = 0;
  long rss_before, rss_parked, rss_after, gauge = -1, faults0, faults1, cpu0, cpu1, user0 = 0, user1 = 0, sys0 = 0, sys1 = 0,
       self0, self1, machine0[5], machine1[5];
  int machine_ok;
  char req[2048];

  if (argc < 6) die ("usage: %s poll|sse PORT SESSIONS N one|many|room [--ready PATH KEY] [--pids LIST] "
                     "[--pub-conns K] [--sse-ready S] [--sse-event S] [--batch B]", argv[0]);
  sse = 0 == strcmp (argv[1], "sse");
  port = atoi (argv[2]);
  n = atoi (argv[4]);
  many = 0 == strcmp (argv[5], "many");
  room = 0 == strcmp (argv[5], "room");
  if (room)
  {
    body = "{\"type\":\"chat/post\",\"payload\":{\"text\":\"hello room\"}}";
    view = "chat";
  }
  for (int i = 6; i < argc; i++)
  {
    if (0 == strcmp (argv[i], "--ready") && i + 2 < argc) { ready_path = argv[++i]; ready_key = argv[++i]; }
    else if (0 == strcmp (argv[i], "--pids") && i + 1 < argc) pids = argv[++i];
    else if (0 == strcmp (argv[i], "--pub-conns") && i + 1 < argc) pubconns = atoi (argv[++i]);
    else if (0 == strcmp (argv[i], "--sse-ready") && i + 1 < argc) sse_ready = argv[++i];
    else if (0 == strcmp (argv[i], "--sse-event") && i + 1 < argc) sse_event = argv[++i];
    else if (0 == strcmp (argv[i], "--batch") && i + 1 < argc) batch = atoi (argv[++i]);
    else die ("unknown option %s", argv[i]);
  }
  if (n <= 0 || batch <= 0 || pubconns <= 0) die ("N, --batch and --pub-conns must be positive");
  if (NULL == (sessions = calloc ((size_t) n, sizeof *sessions))) die ("out of memory");
  nsessions = read_sessions (argv[3], sessions, many || room ? n : 1);
  if (nsessions < (many || room ? n : 1))
    die ("%s holds %d sessions, %d needed", argv[3], nsessions, many || room ? n : 1);
  if (raise_nofile () < n + pubconns + 64) die ("open-file limit too low for %d connections", n);
  alarm (300);                                   /* hard bound on the whole run */

  subs = calloc ((size_t) n, sizeof *subs);
  lat = calloc ((size_t) n, sizeof *lat);
  if (NULL == subs || NULL == lat) die ("out of memory");
  ep = epoll_create1 (EPOLL_CLOEXEC);
  rss_before = rss_kib (pids);

  /* 1. park the subscribers, in batches so the server can drain its accept queue */
  {
    double t = now_ms ();
    for (int i = 0; i < n; i++)
    {
      const struct session *s = &sessions[many || room ? i : 0];
      struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (unsigned) i };
      int len = sse
        ? snprintf (req, sizeof req, "GET /v1/sessions/%s/events?views=%s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    "Accept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n", s->id, view, s->token)
        : snprintf (req, sizeof req, "GET /v1/sessions/%s/poll?views=%s&since=%s&wait=55s HTTP/1.1\r\n"
                    "Host: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n", s->id, view, s->version, s->token);
      subs[i].fd = dial (port);
      write_all (subs[i].fd, req, (size_t) len);
      set_nonblocking (subs[i].fd);
      if (0 != epoll_ctl (ep, EPOLL_CTL_ADD, subs[i].fd, &ev)) die ("epoll_ctl: %s", strerror (errno));
      if ((i + 1) % batch == 0 && ready_path) wait_parked (i + 1, 10000);
    }
    /* SSE: read until every stream has its ready marker (bounded) */
    if (sse)
    {
      int ready = 0;
      double tw = now_ms ();
      while (ready + early < n && now_ms () - tw < 60000)
      {
        struct epoll_event evs[512];
        int k = epoll_wait (ep, evs, 512, 1000);
        for (int j = 0; j < k; j++)
        {
          struct sub *s = &subs[evs[j].data.u32];
          ssize_t r = read (s->fd, s->buf + s->len, BUFSZ - 1 - (size_t) s->len);
          if (r > 0) { s->len += r; if (s->state == WAITING) { sse_advance (s); if (s->state != WAITING) ready++; } }
          else if (r == 0 || errno != EAGAIN) { s->state = FAILED; early++; epoll_ctl (ep, EPOLL_CTL_DEL, s->fd, NULL); }
        }
      }
      if (ready < n) fprintf (stderr, "fanout: only %d of %d streams got \"%s\"\n", ready, n, sse_ready);
    }
    gauge = wait_parked (n, 60000);
    if (pids) wait_quiet (pids, 500, 10000);
    printf ("setup: %d %s parked in %.0f ms (gauge=%ld)\n", n, sse ? "streams" : "long-polls", now_ms () - t, gauge);
  }
  /* anything answered before the dispatch is an error (rejected, or a stale `since`) */
  if (! sse)
  {
    struct epoll_event evs[512];
    int k;
    while ((k = epoll_wait (ep, evs, 512, 0)) > 0)
    {
      for (int j = 0; j < k; j++)
      {
        struct sub *s = &subs[evs[j].data.u32];
        if (s->state != WAITING) continue;
        s->state = FAILED;
        early++;
        epoll_ctl (ep, EPOLL_CTL_DEL, s->fd, NULL);
        if (early <= 3)
        {
          ssize_t r = read (s->fd, s->buf, BUFSZ - 1);
          if (r > 0) { s->buf[r] = 0; fprintf (stderr, "fanout: answered before the dispatch: %.300s\n", s->buf); }
        }
      }
    }
  }
  sleep (1);
  rss_parked = rss_kib (pids);

  /* 2. the dispatch(es) */
  npub = many ? (pubconns < n ? pubconns : n) : 1;
  pubs = calloc ((size_t) npub, sizeof *pubs);
  if (NULL == pubs) die ("out of memory");
  for (int j = 0; j < npub; j++)
  {
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = PUB_TAG | (unsigned) j };
    pubs[j].fd = dial (port);
    pubs[j].next = j;
    set_nonblocking (pubs[j].fd);
    if (0 != epoll_ctl (ep, EPOLL_CTL_ADD, pubs[j].fd, &ev)) die ("epoll_ctl: %s", strerror (errno));
  }
  cpu0 = cpu_ticks_split (pids, &user0, &sys0);
  faults0 = minor_faults (pids);
  self0 = cpu_ticks ("self");
  machine_ok = 0 == machine_ticks (machine0);
  t0 = now_ms ();
  for (int j = 0; j < npub; j++)
  {
    int len = dispatch_request (req, sizeof req, &sessions[pubs[j].next], body);
    write_all (pubs[j].fd, req, (size_t) len);
  }
  lastprog = now_ms ();
  while ((done + failed + early < n || pubdone + pubfail < (many ? n : 1)) && now_ms () - lastprog < 20000)
  {
    struct epoll_event evs[512];
    int k = epoll_wait (ep, evs, 512, 1000);
    for (int j = 0; j < k; j++)
    {
      unsigned id = evs[j].data.u32;
      if (id & PUB_TAG)
      {
        struct pub *p = &pubs[id & ~PUB_TAG];
        ssize_t r = read (p->fd, p->buf + p->len, BUFSZ - 1 - (size_t) p->len);
        long whole;
        int status = 0;
        if (r <= 0)
        {
          if (r < 0 && errno == EAGAIN) continue;
          fprintf (stderr, "fanout: dispatch connection closed\n");
          pubfail += many ? (n - p->next + npub - 1) / npub : 1;
          epoll_ctl (ep, EPOLL_CTL_DEL, p->fd, NULL);
          continue;
        }
        p->len += r;
        if ((whole = http_complete (p->buf, p->len, &status)) < 0) continue;
        lastprog = now_ms ();
        if (status / 100 == 2) pubdone++;
        else { pubfail++; p->buf[p->len] = 0; if (pubfail <= 3) fprintf (stderr, "fanout: dispatch: %.300s\n", p->buf); }
        memmove (p->buf, p->buf + whole, (size_t) (p->len - whole));
        p->len -= whole;
        if (pubdone + pubfail == (many ? n : 1)) tpub = now_ms () - t0;
        p->next += npub;
        if (many && p->next < n)
        {
          int len = dispatch_request (req, sizeof req, &sessions[p->next], body);
          write_all (p->fd, req, (size_t) len);
        }
        continue;
      }
      {
        struct sub *s = &subs[id];
        ssize_t r = read (s->fd, s->buf + s->len, BUFSZ - 1 - (size_t) s->len);
        int status = 0;
        if (r > 0)
        {
          s->len += r;
          if (sse) sse_advance (s);
          else if (http_complete (s->buf, s->len, &status) >= 0) { s->state = DONE; if (status != 200) non200++; }
          if (s->state == DONE)
          {
            lat[done++] = now_ms () - t0;
            lastprog = now_ms ();
            epoll_ctl (ep, EPOLL_CTL_DEL, s->fd, NULL);
          }
        }
        else if (r == 0 || errno != EAGAIN)
        {
          s->state = FAILED;
          failed++;
          epoll_ctl (ep, EPOLL_CTL_DEL, s->fd, NULL);
        }
      }
    }
  }
  cpu1 = cpu_ticks_split (pids, &user1, &sys1);
  faults1 = minor_faults (pids);
  self1 = cpu_ticks ("self");
  machine_ok = machine_ok && 0 == machine_ticks (machine1);
  if (cpu0 >= 0 && cpu1 >= cpu0) cpu_ms = (double) (cpu1 - cpu0) * 1000.0 / (double) sysconf (_SC_CLK_TCK);
  qsort (lat, (size_t) done, sizeof *lat, cmp_double);
  printf ("fanout %s N=%d mode=%s: answered=%d (non-200: %d) failed=%d early=%d | first=%.1f p50=%.1f p99=%.1f "
          "last=%.1f ms | dispatches=%d/%d done in %.1f ms | server CPU %.0f ms\n",
          sse ? "sse" : "poll", n, room ? "room" : many ? "many" : "one", done, non200, failed, early,
          done ? lat[0] : -1, percentile (lat, done, 0.5), percentile (lat, done, 0.99), done ? lat[done - 1] : -1,
          pubdone, many ? n : 1, tpub, cpu_ms);
  /* the same window on the monotonic clock, so a profile taken with `perf record -k mono` can be cut to it */
  printf ("window: monotonic %.6f %.6f s (first dispatch written, last answer read)\n", t0 / 1000.0,
          (t0 + (done ? lat[done - 1] : 0.0)) / 1000.0);

  /* 3. leave, and let the server clean up */
  for (int i = 0; i < n; i++) close (subs[i].fd);
  for (int j = 0; j < npub; j++) close (pubs[j].fd);
  sleep (1);
  if (pids) wait_quiet (pids, 500, 10000);
  rss_after = rss_kib (pids);
  printf ("server RSS: before=%ld KiB parked=%ld KiB after=%ld KiB (%.2f KiB per parked subscriber)\n",
          rss_before, rss_parked, rss_after, rss_before > 0 ? (double) (rss_parked - rss_before) / n : -1.0);
  printf ("RESULT last_ms=%.1f p50_ms=%.1f answered=%d expected=%d non200=%d rss_before_kib=%ld "
          "rss_parked_kib=%ld rss_after_kib=%ld dispatch_ms=%.1f server_cpu_ms=%.0f server_user_ms=%.0f "
          "server_sys_ms=%.0f client_cpu_ms=%.0f server_minor_faults=%ld machine_user_ms=%.0f machine_sys_ms=%.0f "
          "machine_irq_ms=%.0f machine_idle_ms=%.0f machine_steal_ms=%.0f\n",
          done ? lat[done - 1] : -1, percentile (lat, done, 0.5), done, n, non200, rss_before, rss_parked,
          rss_after, tpub, cpu_ms, cpu_ms < 0 ? -1.0 : (double) (user1 - user0) * 1000.0 / (double) sysconf (_SC_CLK_TCK),
          cpu_ms < 0 ? -1.0 : (double) (sys1 - sys0) * 1000.0 / (double) sysconf (_SC_CLK_TCK),
          (double) (self1 - self0) * 1000.0 / (double) sysconf (_SC_CLK_TCK),
          faults0 >= 0 && faults1 >= faults0 ? faults1 - faults0 : -1L, machine_ms (machine_ok, machine0, machine1, 0),
          machine_ms (machine_ok, machine0, machine1, 1), machine_ms (machine_ok, machine0, machine1, 2),
          machine_ms (machine_ok, machine0, machine1, 3), machine_ms (machine_ok, machine0, machine1, 4));
  return done == n && non200 == 0 ? 0 : 3;
}
