/* repoll.c - the server's RSS per parked long-poll when clients poll again, as they do: one long-poll on each
 * of N sessions is parked (the first park, what scenario 2 measures), each is answered by a dispatch on its
 * session, and each connection then polls again from the version it was given (the second park). Prints the
 * RSS growth per poll over the server's RSS before the first park, for both parks.
 *
 * libmicrohttpd zeroes a connection's whole memory pool once it has answered, so from its second request on a
 * connection holds all of its pool, where a fresh one holds only the pages its first request touched.
 * Blocking I/O throughout: nothing here is timed.
 *
 * usage: repoll PORT SESSIONS_FILE N PID
 * Last line: "RESULT first_kib=... second_kib=... rss_before_kib=... rss_first_kib=... rss_second_kib=...".
 */
#include "benchnet.h"

#define BUFSZ 4096

static const char body[] = "{\"type\":\"counter/increase\"}";

/* Reads one whole response on a blocking socket into buf; returns its length (head and body). */
static long read_response (int fd, char *buf, long cap)
{
  long len = 0, whole;
  int status = 0;
  while ((whole = http_complete (buf, len, &status)) < 0)
  {
    ssize_t r;
    if (len >= cap - 1) die ("a response larger than %ld bytes", cap);
    r = read (fd, buf + len, (size_t) (cap - 1 - len));
    if (r <= 0) die ("connection closed before the response was complete");
    len += r;
  }
  buf[whole] = 0;
  if (200 != status) die ("answered %d: %.300s", status, buf);
  return whole;
}

/* Sends a long-poll for session s from version since on fd. */
static void poll_from (int fd, const struct session *s, const char *since)
{
  char req[1024];
  int len = snprintf (req, sizeof req,
                      "GET /v1/sessions/%s/poll?views=counter&since=%s&wait=55s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      "Authorization: Bearer %s\r\n\r\n", s->id, since, s->token);
  write_all (fd, req, (size_t) len);
}

/* Waits (at most 60 s) until the server reports n parked long-polls. */
static void wait_parked (int port, long n)
{
  double start = now_ms ();
  while (http_gauge (port, "/metrics", "remvvm_parked_polls") < n)
  {
    if (now_ms () - start > 60000) die ("fewer than %ld long-polls parked after 60 s", n);
    usleep (20000);
  }
  sleep (1);  /* let the server settle before RSS is read */
}

int main (int argc, char **argv)
{
  struct session *sessions;
  int *fds, port, n, pub;
  long before, first, second;
  static char buf[BUFSZ];

  if (argc != 5) die ("usage: repoll PORT SESSIONS_FILE N PID");
  port = atoi (argv[1]);
  n = atoi (argv[3]);
  if (n <= 0) die ("N must be positive");
  if (raise_nofile () < n + 64) die ("open-file limit too low for %d connections", n);
  alarm (300);  /* hard bound on the whole run */
  sessions = calloc ((size_t) n, sizeof *sessions);
  fds = calloc ((size_t) n, sizeof *fds);
  if (NULL == sessions || NULL == fds) die ("out of memory");
  if (read_sessions (argv[2], sessions, n) < n) die ("%s holds fewer than %d sessions", argv[2], n);

  before = rss_kib (argv[4]);
  for (int i = 0; i < n; i++)
  {
    fds[i] = dial (port);
    poll_from (fds[i], &sessions[i], sessions[i].version);
  }
  wait_parked (port, n);
  first = rss_kib (argv[4]);

  /* one dispatch per session over one keep-alive connection; each wakes its session's poll */
  pub = dial (port);
  for (int i = 0; i < n; i++)
  {
    char req[1024];
    int len = dispatch_request (req, sizeof req, &sessions[i], body);
    write_all (pub, req, (size_t) len);
    read_response (pub, buf, sizeof buf);
  }
  close (pub);

  /* each connection reads its answer and polls again from the version the answer names */
  for (int i = 0; i < n; i++)
  {
    char to[64];
    const char *p, *e;
    read_response (fds[i], buf, sizeof buf);
    if (NULL == (p = strstr (buf, "\"to\":\"")) || NULL == (e = strchr (p + 6, '"')) || e - (p + 6) >= 64)
      die ("no \"to\" in the answer: %.300s", buf);
    memcpy (to, p + 6, (size_t) (e - (p + 6)));
    to[e - (p + 6)] = 0;
    poll_from (fds[i], &sessions[i], to);
  }
  wait_parked (port, n);
  second = rss_kib (argv[4]);

  printf ("repoll N=%d: server RSS before=%ld KiB first park=%ld KiB second park=%ld KiB "
          "(%.2f and %.2f KiB per parked poll)\n",
          n, before, first, second, (double) (first - before) / n, (double) (second - before) / n);
  printf ("RESULT first_kib=%.2f second_kib=%.2f rss_before_kib=%ld rss_first_kib=%ld rss_second_kib=%ld\n",
          (double) (first - before) / n, (double) (second - before) / n, before, first, second);
  for (int i = 0; i < n; i++) close (fds[i]);
  return 0;
}
