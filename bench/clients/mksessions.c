/* mksessions.c - creates sessions fast: POST /v1/sessions over CONNS keep-alive connections (epoll,
 * one request in flight per connection), and writes "id token version" per session to OUT ("-": none).
 * Prints the count, the failures and the rate. With --fake it only writes N made-up lines
 * (PREFIX000...0 000...0 0, ids and tokens of 32 characters) for the floor servers, which take any id.
 * With --join ROOM each new session first joins the example app's chat room ROOM (chat/join), and its line
 * holds the version after the join.
 * usage: mksessions PORT N CONNS OUT [--join ROOM]
 *        mksessions --fake PREFIX N OUT
 */
#include "benchnet.h"
#include <sys/epoll.h>

#define BUFSZ 16384

struct conn { int fd; long len; int joining; struct session s; char buf[BUFSZ]; };

/* Copies the JSON string value of the first "key" into out; returns 1 when found. */
static int json_string (const char *body, const char *key, char *out, size_t cap)
{
  char pat[64];
  const char *p, *e;
  snprintf (pat, sizeof pat, "\"%s\"", key);
  if (NULL == (p = strstr (body, pat))) return 0;
  p += strlen (pat);
  while (*p == ' ' || *p == ':') p++;
  if (*p++ != '"' || NULL == (e = strchr (p, '"')) || (size_t) (e - p) >= cap) return 0;
  memcpy (out, p, (size_t) (e - p));
  out[e - p] = 0;
  return 1;
}

int main (int argc, char **argv)
{
  static const char req[] = "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n";
  int port, n, nconns, ep, sent = 0, done = 0, failed = 0;
  struct conn *cs;
  FILE *out = NULL;
  double t0;

  if (argc == 5 && 0 == strcmp (argv[1], "--fake"))
  {
    FILE *f = fopen (argv[4], "w");
    n = atoi (argv[3]);
    if (NULL == f) die ("cannot write %s", argv[4]);
    /* 32-character ids and tokens, like the real ones, so requests have the same size */
    for (int i = 0; i < n; i++) fprintf (f, "%s%0*d %032d 0\n", argv[2], 32 - (int) strlen (argv[2]), i, i);
    return fclose (f) == 0 ? 0 : 2;
  }
  const char *join = NULL;
  if (argc == 7 && 0 == strcmp (argv[5], "--join")) join = argv[6];
  else if (argc != 5) die ("usage: %s PORT N CONNS OUT|- [--join ROOM]   or   %s --fake PREFIX N OUT", argv[0], argv[0]);
  port = atoi (argv[1]);
  n = atoi (argv[2]);
  nconns = atoi (argv[3]);
  if (n <= 0 || nconns <= 0) die ("N and CONNS must be positive");
  if (nconns > n) nconns = n;
  if (0 != strcmp (argv[4], "-") && NULL == (out = fopen (argv[4], "w"))) die ("cannot write %s", argv[4]);
  raise_nofile ();
  alarm (600);                                   /* hard bound on the whole run */

  cs = calloc ((size_t) nconns, sizeof *cs);
  if (NULL == cs) die ("out of memory");
  ep = epoll_create1 (EPOLL_CLOEXEC);
  t0 = now_ms ();
  for (int i = 0; i < nconns; i++)
  {
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (unsigned) i };
    cs[i].fd = dial (port);
    set_nonblocking (cs[i].fd);
    if (0 != epoll_ctl (ep, EPOLL_CTL_ADD, cs[i].fd, &ev)) die ("epoll_ctl: %s", strerror (errno));
    write_all (cs[i].fd, req, sizeof req - 1);
    sent++;
  }
  while (done + failed < n)
  {
    struct epoll_event evs[256];
    int k = epoll_wait (ep, evs, 256, 10000);
    if (k <= 0) { fprintf (stderr, "mksessions: no answer for 10 s (done=%d)\n", done); break; }
    for (int j = 0; j < k; j++)
    {
      struct conn *c = &cs[evs[j].data.u32];
      ssize_t r = read (c->fd, c->buf + c->len, BUFSZ - 1 - (size_t) c->len);
      long whole;
      int status = 0;
      if (r <= 0)
      {
        if (r < 0 && errno == EAGAIN) continue;
        die ("mksessions: connection closed by the server after %d sessions", done);
      }
      c->len += r;
      c->buf[c->len] = 0;
      if ((whole = http_complete (c->buf, c->len, &status)) < 0) continue;
      if (c->joining)
      {
        const char *body = strstr (c->buf, "\r\n\r\n") + 4;
        c->joining = 0;
        if (status == 200 && json_string (body, "version", c->s.version, sizeof c->s.version))
        {
          done++;
          if (out) fprintf (out, "%s %s %s\n", c->s.id, c->s.token, c->s.version);
        }
        else
        {
          if (failed < 3) fprintf (stderr, "mksessions: join: status %d: %.200s\n", status, c->buf);
          failed++;
        }
      }
      else if (status == 201 && join)
      {
        char payload[256], req2[2048];
        const char *body = strstr (c->buf, "\r\n\r\n") + 4;
        if (json_string (body, "id", c->s.id, sizeof c->s.id) && json_string (body, "token", c->s.token, sizeof c->s.token))
        {
          int len;
          snprintf (payload, sizeof payload, "{\"type\":\"chat/join\",\"payload\":{\"room\":\"%s\",\"name\":\"m%d\"}}",
                    join, done + failed);
          len = dispatch_request (req2, sizeof req2, &c->s, payload);
          memmove (c->buf, c->buf + whole, (size_t) (c->len - whole));
          c->len -= whole;
          c->joining = 1;
          write_all (c->fd, req2, (size_t) len);
          continue;
        }
        failed++;
      }
      else if (status == 201)
      {
        struct session s;
        const char *body = strstr (c->buf, "\r\n\r\n") + 4;
        if (json_string (body, "id", s.id, sizeof s.id) && json_string (body, "token", s.token, sizeof s.token)
            && json_string (body, "version", s.version, sizeof s.version))
        {
          done++;
          if (out) fprintf (out, "%s %s %s\n", s.id, s.token, s.version);
        }
        else failed++;
      }
      else
      {
        if (failed < 3) fprintf (stderr, "mksessions: status %d: %.200s\n", status, c->buf);
        failed++;
      }
      memmove (c->buf, c->buf + whole, (size_t) (c->len - whole));
      c->len -= whole;
      if (sent < n) { write_all (c->fd, req, sizeof req - 1); sent++; }
    }
  }
  {
    double ms = now_ms () - t0;
    printf ("mksessions: created=%d failed=%d in %.0f ms (%.0f sessions/s)\n", done, failed, ms,
            done / (ms / 1000.0));
  }
  if (out && 0 != fclose (out)) die ("cannot write %s", argv[4]);
  return done == n ? 0 : 3;
}
