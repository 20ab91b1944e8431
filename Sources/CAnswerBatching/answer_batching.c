/*
 * answer_batching.c - see include/answer_batching.h.
 *
 * Only the thread that holds a socket releases it, so the list needs no lock. A socket is held
 * from inside a libmicrohttpd callback (its descriptor is valid there) until that worker's next
 * epoll_wait. Holding costs no system call: the thread's sends on a held socket carry MSG_MORE,
 * which leaves a short answer queued as TCP_CORK would, and the release removes TCP_CORK, which
 * pushes what is queued whether or not the socket was corked. A held descriptor that is closed
 * leaves the list (close(2) sends what it queued), so a socket that later takes its number on the
 * same thread is never sent to with MSG_MORE. If the descriptor was closed some other way (dup2,
 * another thread), releasing the number again is harmless: on a TCP socket it only pushes what is
 * queued, and on any other kind of descriptor the call fails.
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
#include <sys/syscall.h>
#include <unistd.h>

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

/* Where `fd` is in the calling thread's list, -1 if it is not held. The newest first: the answer being
 * sent is usually the last one held. */
static int
held_index (int fd)
{
  for (int i = held_count - 1; i >= 0; i--)
    if (held[i] == fd)
      return i;
  return -1;
}

int
epoll_wait (int epfd, struct epoll_event *events, int maxevents, int timeout)
{
  if (held_count > 0)
    release_held ();
  return epoll_pwait (epfd, events, maxevents, timeout, NULL);
}

/* The C library's definitions of the calls below, found before main runs; until then, and if not found,
 * the system calls themselves. */
static ssize_t (*next_send) (int, const void *, size_t, int);
static ssize_t (*next_sendmsg) (int, const struct msghdr *, int);
static int (*next_close) (int);

__attribute__ ((constructor)) static void
find_next_definitions (void)
{
  next_send = (ssize_t (*) (int, const void *, size_t, int)) dlsym (RTLD_NEXT, "send");
  next_sendmsg = (ssize_t (*) (int, const struct msghdr *, int)) dlsym (RTLD_NEXT, "sendmsg");
  next_close = (int (*) (int)) dlsym (RTLD_NEXT, "close");
}

ssize_t
send (int fd, const void *buffer, size_t length, int flags)
{
  if (held_index (fd) >= 0)
    flags |= MSG_MORE;
  if (NULL == next_send)
    return syscall (SYS_sendto, fd, buffer, length, flags, NULL, 0);
  return next_send (fd, buffer, length, flags);
}

ssize_t
sendmsg (int fd, const struct msghdr *message, int flags)
{
  if (held_index (fd) >= 0)
    flags |= MSG_MORE;
  if (NULL == next_sendmsg)
    return syscall (SYS_sendmsg, fd, message, flags);
  return next_sendmsg (fd, message, flags);
}

int
close (int fd)
{
  const int index = held_index (fd);
  if (index >= 0)
    held[index] = held[--held_count]; /* Order does not matter to the release. */
  if (NULL == next_close)
    return (int) syscall (SYS_close, fd);
  return next_close (fd);
}

int
answer_batching_is_active (void)
{
  return dlsym (RTLD_DEFAULT, "epoll_wait") == (void *) &epoll_wait
         && dlsym (RTLD_DEFAULT, "send") == (void *) &send
         && dlsym (RTLD_DEFAULT, "sendmsg") == (void *) &sendmsg
         && dlsym (RTLD_DEFAULT, "close") == (void *) &close;
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
  if (held_index (fd) >= 0)
    return 1; /* A pipelined request on the same connection: already held. */
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
