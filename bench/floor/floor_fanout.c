/* floor_fanout.c - the fan-out floor: long-poll and SSE on libmicrohttpd suspend/resume, nothing else.
 * It speaks the paths of the real API so the same clients drive both (session ids are channel names;
 * tokens and query strings are ignored):
 *   GET  /v1/sessions/{id}/poll    parks (MHD_suspend_connection) until the next publish on {id}
 *   GET  /v1/sessions/{id}/events  text/event-stream: "event: snapshot" at once, "event: patch" per publish
 *   POST /v1/sessions/{id}/actions publishes on {id}: resumes every parked poll and stream of {id}
 *   GET  /count                    {"waiting":N}: polls and streams parked right now, over all channels
 *   GET  /healthz                  200
 * Same daemon mode as remvvm-server (internal polling thread, epoll, suspend/resume, thread pool).
 * usage: floor_fanout PORT [THREADS] [CONNECTION_LIMIT] [tuned]
 *   tuned: libmicrohttpd as remvvm-server sets it up: a 4.5 KiB pool per connection (instead of the default
 *          32 KiB) and resumes made by one thread of their own, paced by remvvm-server's rule (after every
 *          batch, wait 800 ns per suspended connection, at most 8 ms, unless a fortieth of them is pending),
 *          so that resumes share libmicrohttpd's walk of its suspended connections, and each worker woken
 *          once per batch, after the whole batch is marked (as remvvm-server did up to c44aac3; this
 *          benchmark program, not a library, defines write to hold back the resume thread's eventfd
 *          wake-ups until the batch ends).
 *          What libmicrohttpd alone costs at its best.
 * FLOOR_TOUCH_LINES=N (environment): each publish also touches N random cache lines of a 256 MiB buffer, a
 * stand-in for the memory a real server's change touches cold (BENCHMARKS.md, the round "each worker
 * woken once per resume batch").
 */
#define _GNU_SOURCE
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SLOTS (1u << 18)              /* channel table: open addressing, at most SLOTS/2 channels */
#define MSG_CAP 256

enum kind { POLL = 1, STREAM, PUBLISH, OTHER };

struct exchange;
struct channel {
  char *name;
  uint64_t seq;                      /* publishes so far */
  struct exchange **parked;          /* polls and streams suspended on this channel */
  size_t nparked, cap;
};

struct exchange {
  enum kind kind;
  struct channel *ch;
  struct MHD_Connection *conn;
  int ready;                         /* POLL: resumed with an answer in msg */
  int snapshot_sent;                 /* STREAM: first event written */
  uint64_t seen;                     /* STREAM: last seq written */
  size_t len;
  char msg[MSG_CAP];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct channel *table[SLOTS];
static size_t nchannels, nwaiting;
static int stopping;                 /* set under mu at shutdown: streams end instead of parking */

/* Tuned mode: resumes queued for the resume thread (under rq_mu), as remvvm-server's ResumeQueue does. */
static int tuned;
static pthread_mutex_t rq_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rq_cond;       /* on the monotonic clock; initialized in main when tuned */
static struct MHD_Connection **rq_pending;
static size_t rq_count, rq_cap;
static size_t rq_enough = 1;         /* pending resumes that end the gap early (remvvm-server's rule) */
static int rq_stop;
static size_t suspended;             /* connections suspended and not yet resumed (under rq_mu) */

/* FLOOR_TOUCH_LINES: cold memory touched per publish (none when unset). */
#define TOUCH_BYTES (256ul << 20)
static unsigned char *touch_buf;
static long touch_lines;

static void
touch_cold_lines (void)
{
  static __thread uint64_t state = 88172645463325252ull;  /* xorshift64: a fresh line each time */
  for (long i = 0; i < touch_lines; i++)
  {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    touch_buf[(state % (TOUCH_BYTES / 64)) * 64] += 1;
  }
}

/* Tuned mode: the resume thread's wake-ups of one batch, held back until the batch is marked (one per worker).
 * Only eight-byte writes of the value 1 to descriptors with no file type (eventfds), on the resume thread. */
static __thread int wakeups_held;
static __thread int held_fds[64];
static __thread int held_count;

static ssize_t
write_now (int fd, const void *buf, size_t len)
{
  static ssize_t (*next) (int, const void *, size_t);
  if (NULL == next) next = (ssize_t (*) (int, const void *, size_t)) dlsym (RTLD_NEXT, "write");
  return NULL != next ? next (fd, buf, len) : syscall (SYS_write, fd, buf, len);
}

ssize_t
write (int fd, const void *buf, size_t len)
{
  uint64_t value;
  struct stat st;
  if (wakeups_held && 8 == len && (memcpy (&value, buf, 8), 1 == value))
  {
    for (int i = 0; i < held_count; i++)
      if (held_fds[i] == fd) return (ssize_t) len;
    if (held_count < 64 && 0 == fstat (fd, &st) && 0 == (st.st_mode & S_IFMT))
    {
      held_fds[held_count++] = fd;
      return (ssize_t) len;
    }
  }
  return write_now (fd, buf, len);
}

static void
release_wakeups (void)
{
  const uint64_t one = 1;
  wakeups_held = 0;
  for (int i = 0; i < held_count; i++)
    while (write_now (held_fds[i], &one, sizeof one) < 0 && EINTR == errno) ;
  held_count = 0;
}

static void
resume (struct MHD_Connection *conn)  /* any thread */
{
  if (! tuned) { MHD_resume_connection (conn); return; }
  pthread_mutex_lock (&rq_mu);
  if (rq_count == rq_cap)
  {
    size_t cap = rq_cap ? rq_cap * 2 : 1024;
    struct MHD_Connection **p = realloc (rq_pending, cap * sizeof *p);
    if (NULL == p) { pthread_mutex_unlock (&rq_mu); MHD_resume_connection (conn); return; }
    rq_pending = p;
    rq_cap = cap;
  }
  rq_pending[rq_count++] = conn;
  /* As remvvm-server's ResumeQueue: the first item wakes the thread, and so does the one that fills a batch. */
  if (1 == rq_count || rq_enough == rq_count) pthread_cond_signal (&rq_cond);
  pthread_mutex_unlock (&rq_mu);
}

static uint64_t
now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t) t.tv_sec * 1000000000u + (uint64_t) t.tv_nsec;
}

static void *
resume_thread (void *unused)
{
  struct MHD_Connection **batch = NULL;
  size_t cap = 0;
  uint64_t next_at = 0;
  (void) unused;
  for (;;)
  {
    size_t n;
    pthread_mutex_lock (&rq_mu);
    while (0 == rq_count && ! rq_stop) pthread_cond_wait (&rq_cond, &rq_mu);
    /* the gap after the previous batch, cut short when enough resumes have gathered */
    while (! rq_stop && rq_count < rq_enough && now_ns () < next_at)
    {
      struct timespec until = { (time_t) (next_at / 1000000000u), (long) (next_at % 1000000000u) };
      pthread_cond_timedwait (&rq_cond, &rq_mu, &until);
    }
    if (0 == rq_count) { pthread_mutex_unlock (&rq_mu); break; }
    if (cap < rq_count)
    {
      struct MHD_Connection **p = realloc (batch, rq_count * sizeof *p);
      if (NULL == p) abort ();
      batch = p;
      cap = rq_count;
    }
    n = rq_count;
    memcpy (batch, rq_pending, n * sizeof *batch);
    rq_count = 0;
    suspended -= n;
    pthread_mutex_unlock (&rq_mu);
    wakeups_held = 1;
    for (size_t i = 0; i < n; i++) MHD_resume_connection (batch[i]);
    release_wakeups ();
    pthread_mutex_lock (&rq_mu);
    next_at = now_ns () + (suspended * 800 < 8000000 ? suspended * 800 : 8000000);
    rq_enough = suspended / 40 > 1 ? suspended / 40 : 1;
    pthread_mutex_unlock (&rq_mu);
  }
  free (batch);
  return NULL;
}

static struct channel *
channel_named (const char *name, size_t len)  /* caller holds mu */
{
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char) name[i]) * 16777619u;
  for (uint32_t i = h & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1))
  {
    struct channel *c = table[i];
    if (NULL == c)
    {
      if (nchannels >= SLOTS / 2) return NULL;
      if (NULL == (c = calloc (1, sizeof *c)) || NULL == (c->name = strndup (name, len))) { free (c); return NULL; }
      table[i] = c;
      nchannels++;
      return c;
    }
    if (strlen (c->name) == len && 0 == memcmp (c->name, name, len)) return c;
  }
}

static int
park (struct exchange *x)            /* caller holds mu; suspends x->conn */
{
  struct channel *c = x->ch;
  if (c->nparked == c->cap)
  {
    size_t cap = c->cap ? c->cap * 2 : 16;
    struct exchange **p = realloc (c->parked, cap * sizeof *p);
    if (NULL == p) return 0;
    c->parked = p;
    c->cap = cap;
  }
  c->parked[c->nparked++] = x;
  nwaiting++;
  if (tuned) { pthread_mutex_lock (&rq_mu); suspended++; pthread_mutex_unlock (&rq_mu); }
  MHD_suspend_connection (x->conn);
  return 1;
}

static size_t
publish (struct channel *c)          /* caller holds mu; resumes everything parked on c */
{
  size_t n = c->nparked;
  c->seq++;
  for (size_t i = 0; i < n; i++)
  {
    struct exchange *x = c->parked[i];
    if (POLL == x->kind)
    {
      x->len = (size_t) snprintf (x->msg, MSG_CAP,
        "{\"from\":\"%llu\",\"to\":\"%llu\",\"views\":{\"counter\":{\"patch\":"
        "[{\"op\":\"replace\",\"path\":\"/value\",\"value\":%llu}]}}}",
        (unsigned long long) c->seq - 1, (unsigned long long) c->seq, (unsigned long long) c->seq);
      x->ready = 1;
    }
    resume (x->conn);
  }
  c->nparked = 0;
  nwaiting -= n;
  return n;
}

static enum MHD_Result
send_json (struct MHD_Connection *conn, unsigned int code, const char *body, size_t len)
{
  struct MHD_Response *r = MHD_create_response_from_buffer (len, (void *) body, MHD_RESPMEM_MUST_COPY);
  enum MHD_Result ret;
  if (NULL == r) return MHD_NO;
  if (MHD_YES != MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json"))
  { MHD_destroy_response (r); return MHD_NO; }
  ret = MHD_queue_response (conn, code, r);
  MHD_destroy_response (r);
  return ret;
}

/* The event stream's body: a snapshot first, then a patch per publish; parks when there is nothing new. */
static ssize_t
stream_read (void *cls, uint64_t pos, char *buf, size_t max)
{
  struct exchange *x = cls;
  ssize_t n = 0;
  (void) pos;
  pthread_mutex_lock (&mu);
  if (stopping)
    n = MHD_CONTENT_READER_END_OF_STREAM;
  else if (! x->snapshot_sent)
  {
    x->snapshot_sent = 1;
    x->seen = x->ch->seq;
    n = snprintf (buf, max, "event: snapshot\nid: %llu\ndata: {\"counter\":{\"value\":%llu}}\n\n",
                  (unsigned long long) x->seen, (unsigned long long) x->seen);
  }
  else if (x->ch->seq > x->seen)
  {
    x->seen = x->ch->seq;
    n = snprintf (buf, max, "event: patch\nid: %llu\ndata: {\"counter\":{\"patch\":"
                  "[{\"op\":\"replace\",\"path\":\"/value\",\"value\":%llu}]}}\n\n",
                  (unsigned long long) x->seen, (unsigned long long) x->seen);
  }
  else if (! park (x))
    n = MHD_CONTENT_READER_END_WITH_ERROR;
  pthread_mutex_unlock (&mu);
  return n < 0 || (size_t) n < max ? n : MHD_CONTENT_READER_END_WITH_ERROR;
}

static void stream_free (void *cls) { free (cls); }

static enum MHD_Result
on_request (void *cls, struct MHD_Connection *conn, const char *url, const char *method,
            const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
  struct exchange *x = *req_cls;
  (void) cls; (void) version; (void) upload;
  if (NULL == x)                      /* headers only: classify, answer later */
  {
    static const char prefix[] = "/v1/sessions/";
    const char *id = NULL, *slash = NULL;
    if (NULL == (x = calloc (1, sizeof *x))) return MHD_NO;
    x->kind = OTHER;
    x->conn = conn;
    if (0 == strncmp (url, prefix, sizeof prefix - 1))
    {
      id = url + sizeof prefix - 1;
      slash = strchr (id, '/');
    }
    if (NULL != slash && slash > id)
    {
      if (0 == strcmp (method, "GET") && 0 == strcmp (slash, "/poll")) x->kind = POLL;
      else if (0 == strcmp (method, "GET") && 0 == strcmp (slash, "/events")) x->kind = STREAM;
      else if (0 == strcmp (method, "POST") && 0 == strcmp (slash, "/actions")) x->kind = PUBLISH;
      if (OTHER != x->kind)
      {
        pthread_mutex_lock (&mu);
        x->ch = channel_named (id, (size_t) (slash - id));
        pthread_mutex_unlock (&mu);
        if (NULL == x->ch) { free (x); return MHD_NO; }
      }
    }
    *req_cls = x;
    return MHD_YES;
  }
  if (0 != *upload_size) { *upload_size = 0; return MHD_YES; }   /* the action body: unused */

  switch (x->kind)
  {
  case POLL:
  {
    int parked;
    if (x->ready) return send_json (conn, MHD_HTTP_OK, x->msg, x->len);
    pthread_mutex_lock (&mu);
    parked = stopping ? 0 : park (x);
    pthread_mutex_unlock (&mu);
    return parked ? MHD_YES : MHD_NO;
  }
  case STREAM:
  {
    struct exchange *s = malloc (sizeof *s);   /* owned by the response from here on */
    struct MHD_Response *r;
    enum MHD_Result ret;
    if (NULL == s) return MHD_NO;
    *s = *x;
    r = MHD_create_response_from_callback (MHD_SIZE_UNKNOWN, 1024, &stream_read, s, &stream_free);
    if (NULL == r) { free (s); return MHD_NO; }
    if (MHD_YES != MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream")
        || MHD_YES != MHD_add_response_header (r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache"))
    { MHD_destroy_response (r); return MHD_NO; }
    ret = MHD_queue_response (conn, MHD_HTTP_OK, r);
    MHD_destroy_response (r);
    return ret;
  }
  case PUBLISH:
  {
    char out[128];
    size_t woken;
    unsigned long long seq;
    touch_cold_lines ();
    pthread_mutex_lock (&mu);
    woken = publish (x->ch);
    seq = (unsigned long long) x->ch->seq;
    pthread_mutex_unlock (&mu);
    return send_json (conn, MHD_HTTP_OK, out, (size_t) snprintf (out, sizeof out,
                      "{\"version\":\"%llu\",\"results\":[\"applied\"],\"woken\":%zu}", seq, woken));
  }
  default:
    if (0 == strcmp (url, "/count"))
    {
      char out[64];
      size_t n;
      pthread_mutex_lock (&mu);
      n = nwaiting;
      pthread_mutex_unlock (&mu);
      return send_json (conn, MHD_HTTP_OK, out, (size_t) snprintf (out, sizeof out, "{\"waiting\":%zu}", n));
    }
    if (0 == strcmp (url, "/healthz")) return send_json (conn, MHD_HTTP_OK, "{\"ok\":true}", 11);
    return send_json (conn, MHD_HTTP_NOT_FOUND, "{}", 2);
  }
}

static void
on_completed (void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode toe)
{
  (void) cls; (void) conn; (void) toe;
  free (*req_cls);
  *req_cls = NULL;
}

int
main (int argc, char **argv)
{
  unsigned short port = (unsigned short) (argc > 1 ? atoi (argv[1]) : 18083);
  unsigned int threads = (unsigned int) (argc > 2 ? atoi (argv[2]) : 2);
  unsigned int limit = (unsigned int) (argc > 3 ? atoi (argv[3]) : 19000);
  pthread_t resumer;
  struct sockaddr_in sa;
  struct MHD_Daemon *d;
  sigset_t sigs;
  int sig;

  memset (&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons (port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  sigemptyset (&sigs);
  sigaddset (&sigs, SIGINT);
  sigaddset (&sigs, SIGTERM);
  pthread_sigmask (SIG_BLOCK, &sigs, NULL);
  tuned = argc > 4 && 0 == strcmp (argv[4], "tuned");
  if (NULL != getenv ("FLOOR_TOUCH_LINES") && (touch_lines = atol (getenv ("FLOOR_TOUCH_LINES"))) > 0)
  {
    if (NULL == (touch_buf = malloc (TOUCH_BYTES)))
    { fprintf (stderr, "floor_fanout: cannot allocate the FLOOR_TOUCH_LINES buffer\n"); return 1; }
    memset (touch_buf, 1, TOUCH_BYTES);
  }
  if (tuned)
  {
    pthread_condattr_t attr;
    if (0 != pthread_condattr_init (&attr) || 0 != pthread_condattr_setclock (&attr, CLOCK_MONOTONIC)
        || 0 != pthread_cond_init (&rq_cond, &attr))
    {
      fprintf (stderr, "floor_fanout: cannot make the resume thread's condition variable\n");
      return 1;
    }
    pthread_condattr_destroy (&attr);
  }
  if (tuned && 0 != pthread_create (&resumer, NULL, &resume_thread, NULL))
  { fprintf (stderr, "floor_fanout: cannot start the resume thread\n"); return 1; }

  d = MHD_start_daemon (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME,
                        port, NULL, NULL, &on_request, NULL,
                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &sa,
                        MHD_OPTION_THREAD_POOL_SIZE, threads,
                        MHD_OPTION_CONNECTION_LIMIT, limit,
                        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 0,
                        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int) 4096,
                        MHD_OPTION_NOTIFY_COMPLETED, &on_completed, NULL,
                        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) (tuned ? 4608 : 32768),
                        MHD_OPTION_END);
  if (NULL == d) { fprintf (stderr, "floor_fanout: MHD_start_daemon failed on 127.0.0.1:%u\n", port); return 1; }
  printf ("floor_fanout 127.0.0.1:%u threads=%u limit=%u%s (libmicrohttpd %s)\n", port, threads, limit,
          tuned ? " tuned" : "", MHD_get_version ());
  fflush (stdout);
  sigwait (&sigs, &sig);
  /* libmicrohttpd aborts when stopped with suspended connections: resume them all first. */
  pthread_mutex_lock (&mu);
  stopping = 1;
  for (size_t i = 0; i < SLOTS; i++)
    if (NULL != table[i]) publish (table[i]);
  pthread_mutex_unlock (&mu);
  if (tuned)
  {
    pthread_mutex_lock (&rq_mu);
    rq_stop = 1;
    pthread_cond_signal (&rq_cond);
    pthread_mutex_unlock (&rq_mu);
    pthread_join (resumer, NULL);     /* it resumes what is queued before it ends */
    free (rq_pending);
  }
  usleep (200000);
  MHD_stop_daemon (d);
  return 0;
}
