/* floor_post.c - the dispatch floor: the least a libmicrohttpd server can do per POST.
 * Any POST: read the body, answer 200 with a fixed JSON body of BODY_BYTES bytes (the size of the
 * real server's answer to a counter/increase dispatch, measured by bench/dispatch.sh).
 * GET /healthz -> 200. Same daemon mode as remvvm-server: internal polling thread, epoll,
 * thread pool of THREADS (default 2). Listens on 127.0.0.1 only; stops on SIGINT/SIGTERM.
 * usage: floor_post PORT [BODY_BYTES] [THREADS] [WORK_NS] [HEADERS]
 * WORK_NS (default 0) spins that many nanoseconds in each POST before answering (on the vDSO clock),
 * standing in for an application's work: bench/budget.sh uses it to find how much
 * work per request the dispatch target leaves room for.
 * HEADERS (default 1) is 1 (Content-Type only: the benchmark's floor) or 5 (also the four headers a
 * dispatch answer of remvvm-server carries), to measure what response headers cost libmicrohttpd.
 */
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *answer;           /* {"pad":"xxxx..."} of exactly answer_len bytes */
static size_t answer_len;
static int header_seen;        /* *req_cls marker between the first and later calls */
static long work_ns;           /* wall time to spin per POST (0: none) */
static int all_headers;        /* also the server's four other answer headers */

/* Spins on the vDSO clock (no system call) for work_ns nanoseconds, standing in for an application's CPU work.
 * A calibrated loop was tried first and dropped: its speed per iteration varied fivefold between threads. */
static void
spin (void)
{
  struct timespec start, now;
  if (work_ns <= 0) return;
  clock_gettime (CLOCK_MONOTONIC, &start);
  do clock_gettime (CLOCK_MONOTONIC, &now);
  while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < work_ns);
}

static enum MHD_Result
send_json (struct MHD_Connection *c, unsigned int code, const char *body, size_t len)
{
  struct MHD_Response *r = MHD_create_response_from_buffer (len, (void *) body, MHD_RESPMEM_PERSISTENT);
  enum MHD_Result ret;
  if (NULL == r) return MHD_NO;
  if (MHD_YES != MHD_add_response_header (r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json"))
  {
    MHD_destroy_response (r);
    return MHD_NO;
  }
  /* With values as long as those of a dispatch answer of remvvm-server. */
  if (all_headers
      && (MHD_YES != MHD_add_response_header (r, "Store-Version", "20153875efb231d9.1")
          || MHD_YES != MHD_add_response_header (r, MHD_HTTP_HEADER_ETAG, "\"20153875efb231d9.1\"")
          || MHD_YES != MHD_add_response_header (r, "X-Content-Type-Options", "nosniff")
          || MHD_YES != MHD_add_response_header (r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store")))
  {
    MHD_destroy_response (r);
    return MHD_NO;
  }
  ret = MHD_queue_response (c, code, r);
  MHD_destroy_response (r);
  return ret;
}

static enum MHD_Result
on_request (void *cls, struct MHD_Connection *c, const char *url, const char *method,
            const char *version, const char *upload, size_t *upload_size, void **req_cls)
{
  (void) cls; (void) version; (void) upload;
  /* Answer only once the whole request is in: queueing on the headers-only call would make
   * libmicrohttpd 0.9.75 close the connection instead of keeping it alive. */
  if (NULL == *req_cls) { *req_cls = &header_seen; return MHD_YES; }
  if (0 != *upload_size) { *upload_size = 0; return MHD_YES; }   /* body bytes: consumed, unused */
  if (0 == strcmp (method, MHD_HTTP_METHOD_POST))
  {
    spin ();
    return send_json (c, MHD_HTTP_OK, answer, answer_len);
  }
  if (0 == strcmp (method, MHD_HTTP_METHOD_GET) && 0 == strcmp (url, "/healthz"))
    return send_json (c, MHD_HTTP_OK, "{\"ok\":true}", 11);
  return send_json (c, MHD_HTTP_NOT_FOUND, "{}", 2);
}

int
main (int argc, char **argv)
{
  unsigned short port = (unsigned short) (argc > 1 ? atoi (argv[1]) : 18081);
  long want = argc > 2 ? atol (argv[2]) : 100;
  unsigned int threads = (unsigned int) (argc > 3 ? atoi (argv[3]) : 2);
  work_ns = argc > 4 ? atol (argv[4]) : 0;
  all_headers = argc > 5 && 5 == atoi (argv[5]);
  if (argc > 5 && 1 != atoi (argv[5]) && ! all_headers) { fprintf (stderr, "HEADERS must be 1 or 5\n"); return 1; }
  struct sockaddr_in sa;
  struct MHD_Daemon *d;
  sigset_t sigs;
  int sig;

  if (want < 12 || want > 65536) { fprintf (stderr, "BODY_BYTES must be 12...65536\n"); return 1; }
  answer_len = (size_t) want;
  if (NULL == (answer = malloc (answer_len + 1))) return 1;
  memset (answer, 'x', answer_len);
  memcpy (answer, "{\"pad\":\"", 8);
  memcpy (answer + answer_len - 2, "\"}", 2);
  answer[answer_len] = 0;

  memset (&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons (port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  /* Workers inherit the blocked mask; the main thread sigwait()s. */
  sigemptyset (&sigs);
  sigaddset (&sigs, SIGINT);
  sigaddset (&sigs, SIGTERM);
  pthread_sigmask (SIG_BLOCK, &sigs, NULL);

  d = MHD_start_daemon (MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, port, NULL, NULL,
                        &on_request, NULL,
                        MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &sa,
                        MHD_OPTION_THREAD_POOL_SIZE, threads,
                        MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 10000,
                        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 60,
                        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int) 4096,
                        MHD_OPTION_END);
  if (NULL == d) { fprintf (stderr, "floor_post: MHD_start_daemon failed on 127.0.0.1:%u\n", port); return 1; }
  printf ("floor_post 127.0.0.1:%u body=%zu bytes threads=%u work=%ld ns headers=%d (libmicrohttpd %s)\n", port,
          answer_len, threads, work_ns, all_headers ? 5 : 1, MHD_get_version ());
  fflush (stdout);
  sigwait (&sigs, &sig);
  MHD_stop_daemon (d);
  free (answer);
  return 0;
}
