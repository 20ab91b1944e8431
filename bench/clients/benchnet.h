/* benchnet.h - small helpers shared by the benchmark clients (header-only, one user per program).
 * Blocking dial to 127.0.0.1, full writes, HTTP/1.1 response framing (Content-Length or chunked),
 * a monotonic clock, the RSS and CPU time of server processes read from /proc, and the session file
 * format written by mksessions ("id token version" per line).
 */
#ifndef BENCHNET_H
#define BENCHNET_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static inline void die (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (2);
}

static inline double now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec * 1e3 + (double) t.tv_nsec / 1e6;
}

/* Raise the soft open-file limit to the hard one; returns the new soft limit. */
static inline long raise_nofile (void)
{
  struct rlimit rl;
  if (0 != getrlimit (RLIMIT_NOFILE, &rl)) return -1;
  rl.rlim_cur = rl.rlim_max;
  if (0 != setrlimit (RLIMIT_NOFILE, &rl)) return -1;
  return (long) rl.rlim_cur;
}

static inline int dial (int port)
{
  struct sockaddr_in sa;
  int one = 1;
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die ("socket: %s", strerror (errno));
  if (0 != setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one))
    die ("setsockopt: %s", strerror (errno));
  memset (&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons ((unsigned short) port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (0 != connect (fd, (struct sockaddr *) &sa, sizeof sa))
    die ("connect 127.0.0.1:%d: %s", port, strerror (errno));
  return fd;
}

static inline void set_nonblocking (int fd)
{
  int fl = fcntl (fd, F_GETFL);
  if (fl < 0 || 0 != fcntl (fd, F_SETFL, fl | O_NONBLOCK)) die ("fcntl: %s", strerror (errno));
}

/* Writes everything; on a non-blocking socket waits (bounded) for room. */
static inline void write_all (int fd, const char *p, size_t n)
{
  double start = now_ms ();
  while (n > 0)
  {
    ssize_t w = write (fd, p, n);
    if (w > 0) { p += w; n -= (size_t) w; continue; }
    if (w < 0 && (errno == EAGAIN || errno == EINTR) && now_ms () - start < 10000) { usleep (1000); continue; }
    die ("write: %s", w < 0 ? strerror (errno) : "short write");
  }
}

/* If buf holds one complete HTTP response, returns its total length (head + body), else -1.
 * Understands Content-Length and chunked transfer encoding; *status gets the status code. */
static inline long http_complete (const char *b, long len, int *status)
{
  const char *he = memmem (b, (size_t) len, "\r\n\r\n", 4);
  const char *p;
  long head, cl = 0;
  int chunked = 0;
  if (NULL == he) return -1;
  head = (long) (he + 4 - b);
  if (status && len > 12) *status = atoi (b + 9);
  for (p = b; p < he; p++)
  {
    if (p != b && p[-1] != '\n') continue;
    if (0 == strncasecmp (p, "content-length:", 15)) cl = strtol (p + 15, NULL, 10);
    else if (0 == strncasecmp (p, "transfer-encoding:", 18))
    {
      const char *v = p + 18;
      while (*v == ' ') v++;
      if (0 == strncasecmp (v, "chunked", 7)) chunked = 1;
    }
  }
  if (! chunked) return head + cl <= len ? head + cl : -1;
  /* walk the chunks: size CRLF data CRLF ... 0 CRLF CRLF */
  for (long off = head;;)
  {
    const char *crlf = memmem (b + off, (size_t) (len - off), "\r\n", 2);
    long size;
    if (NULL == crlf) return -1;
    size = strtol (b + off, NULL, 16);
    off = (long) (crlf + 2 - b);
    if (size == 0) return off + 2 <= len ? off + 2 : -1;
    off += size + 2;
    if (off > len) return -1;
  }
}

/* One blocking request on a fresh connection; returns the response in a static buffer (or ""). */
static inline const char *http_oneshot (int port, const char *req, int *status)
{
  static char b[65536];
  long len = 0;
  int fd = dial (port);
  double start = now_ms ();
  struct timeval tv = { .tv_sec = 5, .tv_usec = 0 };
  setsockopt (fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  write_all (fd, req, strlen (req));
  *status = 0;
  while (len < (long) sizeof b - 1 && now_ms () - start < 5000)
  {
    ssize_t r = read (fd, b + len, sizeof b - 1 - (size_t) len);
    if (r <= 0) break;
    len += r;
    if (http_complete (b, len, status) >= 0) break;
  }
  b[len] = 0;
  close (fd);
  return b;
}

/* The number after the last occurrence of key in the body of GET path (a JSON field or a Prometheus
 * sample: the last occurrence skips "# HELP"/"# TYPE" lines); -1 when absent. */
static inline long http_gauge (int port, const char *path, const char *key)
{
  char req[1024];
  int status;
  const char *r, *p, *last = NULL;
  snprintf (req, sizeof req,
            "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/json\r\nConnection: close\r\n\r\n", path);
  r = http_oneshot (port, req, &status);
  if (NULL == (p = strstr (r, "\r\n\r\n"))) return -1;
  while (NULL != (p = strstr (p, key))) { last = p; p += strlen (key); }
  if (NULL == last) return -1;
  p = last + strlen (key);
  while (*p && *p != '\n' && (*p < '0' || *p > '9')) p++;
  return (*p >= '0' && *p <= '9') ? strtol (p, NULL, 10) : -1;
}

/* Sum of VmRSS (KiB) over a comma-separated list of PIDs; -1 when none could be read. */
static inline long rss_kib (const char *pids)
{
  char list[1024], *tok, *save, path[64], line[256];
  long sum = 0;
  int found = 0;
  if (NULL == pids || ! *pids) return -1;
  snprintf (list, sizeof list, "%s", pids);
  for (tok = strtok_r (list, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
  {
    FILE *f;
    snprintf (path, sizeof path, "/proc/%s/status", tok);
    if (NULL == (f = fopen (path, "r"))) continue;
    while (fgets (line, sizeof line, f))
      if (0 == strncmp (line, "VmRSS:", 6)) { sum += strtol (line + 6, NULL, 10); found = 1; }
    fclose (f);
  }
  return found ? sum : -1;
}

/* The whole machine's CPU time so far, in clock ticks summed over every CPU (the first line of /proc/stat),
 * folded into five kinds: [0] user (with nice), [1] system, [2] interrupts (irq and softirq: the kernel's
 * network work, which with IRQ time accounting is charged to no process), [3] idle (with iowait) and [4] time
 * stolen by the hypervisor. Returns 0, or -1 when it cannot be read. */
static inline int machine_ticks (long kinds[5])
{
  long user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  FILE *f = fopen ("/proc/stat", "r");
  int read;
  if (NULL == f) return -1;
  read = fscanf (f, "cpu %ld %ld %ld %ld %ld %ld %ld %ld", &user, &nice, &sys, &idle, &iowait, &irq, &softirq, &steal);
  fclose (f);
  if (read < 8) return -1;
  kinds[0] = user + nice;
  kinds[1] = sys;
  kinds[2] = irq + softirq;
  kinds[3] = idle + iowait;
  kinds[4] = steal;
  return 0;
}

/* Sums two counters of /proc/PID/stat over a comma-separated list of PIDs (all threads): fields first and
 * second (numbered as in proc(5), both after the command name, first < second) into *a and *b. Returns -1 when
 * the list is empty, else 0. */
static inline int proc_stat_sum (const char *pids, int first, int second, long *a, long *b)
{
  char list[1024], *tok, *save, path[64], line[2048];
  *a = *b = 0;
  if (NULL == pids || ! *pids) return -1;
  snprintf (list, sizeof list, "%s", pids);
  for (tok = strtok_r (list, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
  {
    FILE *f;
    char *p;
    snprintf (path, sizeof path, "/proc/%s/stat", tok);
    if (NULL == (f = fopen (path, "r"))) continue;
    if (fgets (line, sizeof line, f) && NULL != (p = strrchr (line, ')')))
    {
      /* after ") ": field 3 (the state) onwards, separated by single spaces */
      char *field = p + 2;
      for (int n = 3; n <= second && NULL != field; n++)
      {
        if (n == first) *a += strtol (field, NULL, 10);
        if (n == second) *b += strtol (field, NULL, 10);
        if (NULL != (field = strchr (field, ' '))) field++;
      }
    }
    fclose (f);
  }
  return 0;
}

/* User and system CPU ticks summed over a comma-separated list of PIDs (all threads); "self" is this process.
 * Returns user + system, or -1 when the list is empty. */
static inline long cpu_ticks_split (const char *pids, long *user, long *sys)
{
  long ut, st;
  if (proc_stat_sum (pids, 14, 15, &ut, &st) < 0) return -1;  /* utime, stime */
  if (user) *user = ut;
  if (sys) *sys = st;
  return ut + st;
}

/* Sum of minor page faults over a comma-separated list of PIDs (all threads); -1 without PIDs. */
static inline long minor_faults (const char *pids)
{
  long minflt, unused;
  return proc_stat_sum (pids, 10, 11, &minflt, &unused) < 0 ? -1 : minflt;  /* minflt (and cminflt) */
}

/* Sum of user+system CPU ticks over a comma-separated list of PIDs (all threads). */
static inline long cpu_ticks (const char *pids)
{
  return cpu_ticks_split (pids, NULL, NULL);
}

/* Waits (at most max_ms) until the servers used no CPU for quiet_ms; returns 1 when they went quiet. */
static inline int wait_quiet (const char *pids, int quiet_ms, int max_ms)
{
  double start = now_ms (), since = now_ms ();
  long last = cpu_ticks (pids);
  if (last < 0) return 0;
  while (now_ms () - start < max_ms)
  {
    long t;
    usleep (100000);
    t = cpu_ticks (pids);
    if (t != last) { last = t; since = now_ms (); }
    else if (now_ms () - since >= quiet_ms) return 1;
  }
  return 0;
}

struct session { char id[96]; char token[160]; char version[64]; };

/* Reads up to max lines of "id token version"; returns how many. */
static inline int read_sessions (const char *file, struct session *out, int max)
{
  FILE *f = fopen (file, "r");
  int n = 0;
  if (NULL == f) die ("cannot open %s: %s", file, strerror (errno));
  while (n < max && 3 == fscanf (f, "%95s %159s %63s", out[n].id, out[n].token, out[n].version)) n++;
  fclose (f);
  return n;
}

static inline int cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static inline double percentile (double *sorted, int n, double q)
{
  int i;
  if (n <= 0) return -1;
  i = (int) (q * (n - 1) + 0.5);
  return sorted[i < n ? i : n - 1];
}

/* Builds the dispatch request for one session ({"type":"counter/increase"}, counter view only). */
static inline int dispatch_request (char *out, size_t cap, const struct session *s, const char *body)
{
  return snprintf (out, cap,
                   "POST /v1/sessions/%s/actions?views=counter HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "Authorization: Bearer %s\r\nContent-Type: application/json\r\n"
                   "Content-Length: %zu\r\n\r\n%s",
                   s->id, s->token, strlen (body), body);
}

#endif
