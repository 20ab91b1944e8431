/* follow.c - the Swift client's benchmark path (counter-client bench) through raw HTTP, as a yardstick.
 *
 *   follow PORT COUNT poll|sse [ID TOKEN]
 *
 * Creates a session on the counter example (counter-example) on 127.0.0.1:PORT, or uses session ID with TOKEN
 * (starting the count where the session's counter is); then COUNT times: sets the
 * counter on one keep-alive connection (POST .../actions with an Idempotency-Key, as the client sends it) and
 * times until a second connection following the session sees the new count: a long-poll from its cursor
 * (GET .../poll?since=V&wait=25s, polled again at once with the answer's "to") or one event stream
 * (GET .../events?since=V, each "event: patch"). The next set starts once both the dispatch answer and the new
 * count are in, as the Swift client's loop does. Prints
 *   RESULT changes=N p50_ms=X p99_ms=Y cpu_us=Z
 * with cpu_us this process's user+system time per change (sender and follower in one process, as the Swift
 * client's figure).
 */
#include "benchnet.h"

#include <poll.h>

static int port;
static char id[96], token[160], cursor[64];

/* The string value of "key":"..." in s, copied into out; 0 when absent. */
static int json_string (const char *s, const char *key, char *out, size_t cap)
{
  char pattern[64];
  const char *p, *end;
  snprintf (pattern, sizeof pattern, "\"%s\":\"", key);
  if (NULL == (p = strstr (s, pattern))) return 0;
  p += strlen (pattern);
  if (NULL == (end = strchr (p, '"')) || (size_t) (end - p) >= cap) return 0;
  memcpy (out, p, (size_t) (end - p));
  out[end - p] = 0;
  return 1;
}

/* Whether s holds the count `value` as a patch value or a whole view: "value":N or "count":N, N whole. */
static int has_count (const char *s, int value)
{
  static const char *keys[] = { "\"value\":", "\"count\":" };
  for (int k = 0; k < 2; k++)
    for (const char *p = strstr (s, keys[k]); NULL != p; p = strstr (p + 1, keys[k]))
    {
      char *end;
      long n = strtol (p + strlen (keys[k]), &end, 10);
      if (n == value && (*end < '0' || *end > '9')) return 1;
    }
  return 0;
}

/* Reads from fd into b (at *len) until one whole response is there (at most 30 s); returns its length. */
static long read_response (int fd, char *b, long cap, long *len, int *status)
{
  double start = now_ms ();
  long whole;
  while ((whole = http_complete (b, *len, status)) < 0)
  {
    struct pollfd p = { .fd = fd, .events = POLLIN };
    ssize_t r;
    if (now_ms () - start > 30000) die ("no whole answer within 30 s");
    if (poll (&p, 1, 1000) <= 0) continue;
    r = read (fd, b + *len, (size_t) (cap - 1 - *len));
    if (r <= 0) die ("the server closed a connection (%s)", r < 0 ? strerror (errno) : "end of file");
    *len += r;
  }
  b[whole < cap ? whole : cap - 1] = 0;
  return whole;
}

/* Drops the first n bytes of b. */
static void consume (char *b, long *len, long n)
{
  memmove (b, b + n, (size_t) (*len - n));
  *len -= n;
  b[*len] = 0;
}

static void send_poll (int fd)
{
  char req[1024];
  int n = snprintf (req, sizeof req,
                    "GET /v1/sessions/%s/poll?since=%s&wait=25s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    "Accept: application/json\r\nAuthorization: Bearer %s\r\n\r\n",
                    id, cursor, token);
  write_all (fd, req, (size_t) n);
}

int main (int argc, char **argv)
{
  static char sb[65536], fb[262144];
  long slen = 0, flen = 0;
  int count, sse, status, sender, follower, base = 0;
  double *latencies;
  struct rusage before, after;
  const char *answer;

  if (argc != 4 && argc != 6) die ("usage: follow PORT COUNT poll|sse [ID TOKEN]");
  port = atoi (argv[1]);
  count = atoi (argv[2]);
  sse = 0 == strcmp (argv[3], "sse");
  if (count <= 0 || port <= 0) die ("usage: follow PORT COUNT poll|sse");
  latencies = calloc ((size_t) count, sizeof *latencies);
  if (NULL == latencies) die ("out of memory");

  if (argc == 6)
  {
    char req[1024];
    const char *count_field;
    snprintf (id, sizeof id, "%s", argv[4]);
    snprintf (token, sizeof token, "%s", argv[5]);
    snprintf (req, sizeof req,
              "GET /v1/sessions/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
              "Connection: close\r\n\r\n",
              id, token);
    answer = http_oneshot (port, req, &status);
    if (status != 200 || ! json_string (answer, "version", cursor, sizeof cursor))
      die ("reading session %s: status %d", id, status);
    if (NULL != (count_field = strstr (answer, "\"count\":"))) base = atoi (count_field + 8);
  }
  else
  {
    answer = http_oneshot (port,
                           "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n"
                           "Connection: close\r\n\r\n",
                           &status);
    if (status != 201 && status != 200) die ("creating a session: status %d", status);
    if (! json_string (answer, "id", id, sizeof id) || ! json_string (answer, "token", token, sizeof token)
        || ! json_string (answer, "version", cursor, sizeof cursor))
      die ("the created session has no id, token or version: %s", answer);
  }

  sender = dial (port);
  follower = dial (port);
  if (sse)
  {
    char req[1024];
    int n = snprintf (req, sizeof req,
                      "GET /v1/sessions/%s/events?since=%s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      "Accept: text/event-stream\r\nAuthorization: Bearer %s\r\n\r\n",
                      id, cursor, token);
    write_all (follower, req, (size_t) n);
  }
  else
    send_poll (follower);

  getrusage (RUSAGE_SELF, &before);
  for (int step = 1; step <= count; step++)
  {
    char body[128], req[1024];
    int n, seen = 0, answered = 0;
    double t0;
    snprintf (body, sizeof body, "{\"type\":\"counter/set\",\"payload\":{\"count\":%d}}", base + step);
    n = snprintf (req, sizeof req,
                  "POST /v1/sessions/%s/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
                  "Authorization: Bearer %s\r\nContent-Type: application/json\r\nIdempotency-Key: bench-%d-%d\r\n"
                  "Content-Length: %zu\r\n\r\n%s",
                  id, token, base, step, strlen (body), body);
    t0 = now_ms ();
    write_all (sender, req, (size_t) n);
    while (! seen || ! answered)
    {
      struct pollfd p[2] = { { .fd = sender, .events = answered ? 0 : POLLIN }, { .fd = follower, .events = seen ? 0 : POLLIN } };
      if (poll (p, 2, 30000) <= 0) die ("step %d: nothing within 30 s", step);
      if (p[0].revents)
      {
        long whole = read_response (sender, sb, sizeof sb, &slen, &status);
        if (status != 200) die ("step %d: dispatch status %d: %s", step, status, sb);
        consume (sb, &slen, whole);
        answered = 1;
      }
      if (p[1].revents && sse)
      {
        ssize_t r = read (follower, fb + flen, sizeof fb - 1 - (size_t) flen);
        char *event;
        if (r <= 0) die ("step %d: the event stream closed", step);
        flen += r;
        fb[flen] = 0;
        /* Whole events only: a blank line ends each. */
        while (NULL != (event = strstr (fb, "\n\n")))
        {
          long size = event + 2 - fb;
          char saved = fb[size];
          fb[size] = 0;
          if (strstr (fb, "event: patch") && has_count (fb, base + step)) seen = 1;
          fb[size] = saved;
          consume (fb, &flen, size);
        }
      }
      else if (p[1].revents)
      {
        long whole = read_response (follower, fb, sizeof fb, &flen, &status);
        if (status != 200) die ("step %d: poll status %d: %s", step, status, fb);
        if (! json_string (fb, "to", cursor, sizeof cursor)) die ("step %d: a poll answer without 'to'", step);
        if (has_count (fb, base + step)) seen = 1;
        consume (fb, &flen, whole);
        send_poll (follower);
      }
    }
    latencies[step - 1] = now_ms () - t0;
  }
  getrusage (RUSAGE_SELF, &after);

  qsort (latencies, (size_t) count, sizeof *latencies, cmp_double);
  {
    double cpu_us = ((double) (after.ru_utime.tv_sec - before.ru_utime.tv_sec) * 1e6
                     + (double) (after.ru_utime.tv_usec - before.ru_utime.tv_usec)
                     + (double) (after.ru_stime.tv_sec - before.ru_stime.tv_sec) * 1e6
                     + (double) (after.ru_stime.tv_usec - before.ru_stime.tv_usec));
    printf ("RESULT changes=%d p50_ms=%.3f p99_ms=%.3f cpu_us=%.1f\n", count, percentile (latencies, count, 0.5),
            percentile (latencies, count, 0.99), cpu_us / count);
  }
  return 0;
}
