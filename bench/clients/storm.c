/* storm.c - the reconnect storm: a long-poll parked on each of N sessions through nginx, then the node holding
 * them is killed (SIGKILL) and one action is dispatched to each session through nginx, so that each poll is
 * answered by the session's new owner. Prints how long after the kill the polls were answered (p50, p99, max),
 * and every status the polls and dispatches saw. A 503 is retried after its Retry-After; a closed connection is
 * dialled again and counted.
 *
 * usage: storm touch PORT SESSIONS_FILE            read each session once (it moves to the node nginx picks)
 *        storm run PORT SESSIONS_FILE PID PARK_SECONDS
 * Last line of run: "RESULT n=... answered=... p50_ms=... p99_ms=... max_ms=... polls=... dispatches=... reconnects=...".
 */
#include "benchnet.h"
#include <signal.h>
#include <sys/epoll.h>

#define BUFSZ 8192
#define POOL 64

enum kind { POLL, DISPATCH, TOUCH };
struct conn { int fd; enum kind kind; int session; long len; double retry_at; int busy; char buf[BUFSZ]; };

static struct session *sessions;
static int n;
static int port;
static int ep;
static double answered_at[1 << 20];
static long poll_status[600], dispatch_status[600], reconnects;

static void request (struct conn *c)
{
  char req[1024];
  int len;
  const struct session *s = &sessions[c->session];
  if (c->kind == DISPATCH) len = dispatch_request (req, sizeof req, s, "{\"type\":\"counter/increase\"}");
  else if (c->kind == POLL)
    len = snprintf (req, sizeof req,
                    "GET /v1/sessions/%s/poll?views=counter&since=%s&wait=50s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    "Authorization: Bearer %s\r\n\r\n", s->id, s->version, s->token);
  else
    len = snprintf (req, sizeof req,
                    "GET /v1/sessions/%s?views=counter HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n\r\n",
                    s->id, s->token);
  c->len = 0;
  c->busy = 1;
  write_all (c->fd, req, (size_t) len);
}

static void open_conn (struct conn *c)
{
  struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
  c->fd = dial (port);
  set_nonblocking (c->fd);
  if (0 != epoll_ctl (ep, EPOLL_CTL_ADD, c->fd, &ev)) die ("epoll_ctl: %s", strerror (errno));
}

static void reopen (struct conn *c)
{
  epoll_ctl (ep, EPOLL_CTL_DEL, c->fd, NULL);
  close (c->fd);
  reconnects++;
  open_conn (c);
}

static double retry_after (const char *head)
{
  const char *p = strcasestr (head, "\r\nretry-after:");
  return p ? atof (p + 14) * 1000.0 : 1000.0;
}

/* Reads what arrived; returns the status of a complete response (0: not yet, -1: connection closed). */
static int receive (struct conn *c)
{
  int status = 0;
  long whole;
  for (;;)
  {
    ssize_t r = read (c->fd, c->buf + c->len, (size_t) (BUFSZ - 1 - c->len));
    if (r == 0) return -1;
    if (r < 0) break;
    c->len += r;
    if (c->len >= BUFSZ - 1) die ("a response larger than %d bytes", BUFSZ);
  }
  if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
  c->buf[c->len] = 0;
  whole = http_complete (c->buf, c->len, &status);
  return whole < 0 ? 0 : status;
}

int main (int argc, char **argv)
{
  int touch = argc == 4 && 0 == strcmp (argv[1], "touch");
  struct conn *polls = NULL, *pool;
  struct epoll_event events[256];
  int next = 0, done = 0, answered = 0, *queue, head = 0, tail = 0;
  double t0 = 0, *times;
  if (! touch && ! (argc == 6 && 0 == strcmp (argv[1], "run"))) die ("usage: storm touch|run PORT FILE [PID PARK_SECONDS]");
  raise_nofile ();
  port = atoi (argv[2]);
  sessions = calloc (1 << 20, sizeof *sessions);
  n = read_sessions (argv[3], sessions, 1 << 20);
  ep = epoll_create1 (0);
  queue = calloc ((size_t) n * 64 + 1, sizeof *queue);
  pool = calloc (POOL, sizeof *pool);
  for (int i = 0; i < n; i++) queue[tail++] = i;
  if (! touch)
  {
    polls = calloc ((size_t) n, sizeof *polls);
    for (int i = 0; i < n; i++)
    {
      polls[i].kind = POLL;
      polls[i].session = i;
      open_conn (&polls[i]);
      request (&polls[i]);
    }
    fprintf (stderr, "storm: %d polls sent; parking for %s s\n", n, argv[5]);
    sleep ((unsigned) atoi (argv[5]));
    if (0 != kill (atoi (argv[4]), SIGKILL)) die ("kill %s: %s", argv[4], strerror (errno));
    t0 = now_ms ();
  }
  for (int i = 0; i < POOL; i++)
  {
    pool[i].kind = touch ? TOUCH : DISPATCH;
    open_conn (&pool[i]);
  }
  while ((touch ? done < n : answered < n) && (touch || now_ms () - t0 < 30000))
  {
    double now = now_ms ();
    for (int i = 0; i < POOL; i++)
      if (! pool[i].busy && head < tail && pool[i].retry_at <= now)
      {
        pool[i].session = queue[head++];
        request (&pool[i]);
      }
    if (! touch)
      for (int i = 0; i < n; i++)
        if (! polls[i].busy && answered_at[i] == 0 && polls[i].retry_at <= now) request (&polls[i]);
    int ready = epoll_wait (ep, events, 256, 20);
    for (int e = 0; e < ready; e++)
    {
      struct conn *c = events[e].data.ptr;
      int status = receive (c);
      if (status == 0) continue;
      if (status < 0)
      {
        int was = c->busy;
        reopen (c);
        c->busy = 0;
        if (was && c->kind != POLL) queue[tail++] = c->session;
        continue;
      }
      c->busy = 0;
      if (c->kind == POLL)
      {
        poll_status[status < 600 ? status : 0]++;
        if (status == 200) { answered_at[c->session] = now_ms () - t0; answered++; }
        else c->retry_at = now_ms () + retry_after (c->buf);
      }
      else
      {
        dispatch_status[status < 600 ? status : 0]++;
        if (status == 503 || status == 502) { queue[tail++] = c->session; c->retry_at = now_ms () + (status == 503 ? retry_after (c->buf) : 100); }
        else done++;
      }
    }
  }
  if (touch)
  {
    printf ("RESULT touched=%d statuses", done);
    for (int s = 0; s < 600; s++) if (dispatch_status[s]) printf (" %d:%ld", s, dispatch_status[s]);
    printf ("\n");
    return 0;
  }
  times = calloc ((size_t) n, sizeof *times);
  for (int i = 0, k = 0; i < n; i++) if (answered_at[i] > 0) times[k++] = answered_at[i];
  qsort (times, (size_t) answered, sizeof *times, cmp_double);
  printf ("RESULT n=%d answered=%d p50_ms=%.0f p99_ms=%.0f max_ms=%.0f", n, answered,
          percentile (times, answered, 0.5), answered >= n * 99 / 100 ? times[n * 99 / 100 - 1] : -1.0,
          percentile (times, answered, 1.0));
  printf (" polls");
  for (int s = 0; s < 600; s++) if (poll_status[s]) printf (" %d:%ld", s, poll_status[s]);
  printf (" dispatches");
  for (int s = 0; s < 600; s++) if (dispatch_status[s]) printf (" %d:%ld", s, dispatch_status[s]);
  printf (" reconnects=%ld\n", reconnects);
  (void) next;
  return 0;
}
