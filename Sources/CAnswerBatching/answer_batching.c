/*
 * answer_batching.c - see include/answer_batching.h.
 *
 * Only the thread that holds a socket releases it, so the list needs no lock. A socket is held
 * from inside a libmicrohttpd callback (its descriptor is valid there) until that worker's next
 * epoll_wait. If libmicrohttpd closed the connection meanwhile, close(2) already sent the held
 * bytes, and releasing the number again is harmless: removing TCP_CORK from a socket that is not
 * corked only pushes what it has queued, and on any other kind of descriptor the call fails.
 */
#define _GNU_SOURCE
#include "answer_batching.h"
#include "uncork_ring.h"

#include <dlfcn.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/socket.h>

/* One pass of a libmicrohttpd worker handles at most 128 events; pipelined requests add a few. */
enum { HELD_CAPACITY = 256 };

static __thread int held[HELD_CAPACITY];
static __thread int held_count;
/* How the calling thread releases more than one socket: through uncork_ring.c when set. */
static __thread int release_in_one_call;
/* Releases this thread made through one io_uring submission (for tests). */
static __thread int one_call_releases;

static void
release_held (void)
{
  if (held_count > 1 && release_in_one_call && uncork_ring_release (held, held_count))
    {
      one_call_releases++;
      held_count = 0;
      return;
    }
  const int off = 0;
  for (int i = 0; i < held_count; i++)
    (void) setsockopt (held[i], IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  held_count = 0;
}

int
epoll_wait (int epfd, struct epoll_event *events, int maxevents, int timeout)
{
  if (held_count > 0)
    release_held ();
  return epoll_pwait (epfd, events, maxevents, timeout, NULL);
}

int
answer_batching_is_active (void)
{
  return dlsym (RTLD_DEFAULT, "epoll_wait") == (void *) &epoll_wait;
}

int
answer_batching_can_release_in_one_call (void)
{
  return uncork_ring_is_usable ();
}

int
answer_batching_hold (int fd, int in_one_call)
{
  if (fd < 0 || held_count >= HELD_CAPACITY)
    return 0;
  release_in_one_call = in_one_call;
  if (held_count > 0 && held[held_count - 1] == fd)
    return 1; /* A pipelined request on the same connection: already held. */
  const int on = 1;
  if (0 != setsockopt (fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on))
    return 0;
  held[held_count++] = fd;
  return 1;
}

int
answer_batching_held_count (void)
{
  return held_count;
}

int
answer_batching_one_call_releases (void)
{
  return one_call_releases;
}
