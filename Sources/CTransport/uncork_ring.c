/*
 * uncork_ring.c - see include/remvvm_uncork_ring.h.
 *
 * A minimal io_uring, one per releasing thread, used only for IORING_OP_URING_CMD with
 * SOCKET_URING_OP_SETSOCKOPT (Linux 6.7). The kernel runs a socket's setsockopt command inline
 * while it takes the submission, so every push has happened when io_uring_enter returns; the
 * completions are read right after, to spot a kernel that refuses the command.
 *
 * The system headers may predate the socket command (Debian 12 ships Linux 6.1's), so the two
 * numbers it adds are defined here, and the command's fields are written at the offsets the
 * kernel reads them from: level and optname share `addr`, optlen sits in `splice_fd_in`, and
 * optval is `addr3`.
 */
#define _GNU_SOURCE
#include "remvvm_uncork_ring.h"

#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SOCKET_URING_OP_SETSOCKOPT
#define SOCKET_URING_OP_SETSOCKOPT 3
#endif

enum { RING_ENTRIES = 256 };

/* Whether rings work in this process: unknown until the first one is tried. */
enum { RING_UNKNOWN, RING_USABLE, RING_UNUSABLE };
static _Atomic int ring_support = RING_UNKNOWN;

struct ring
{
  int fd;
  unsigned entries;
  _Atomic unsigned *sq_tail;
  unsigned *sq_mask;
  unsigned *sq_array;
  _Atomic unsigned *cq_head;
  _Atomic unsigned *cq_tail;
  unsigned *cq_mask;
  struct io_uring_sqe *sqes;
  struct io_uring_cqe *cqes;
  void *rings;
  size_t rings_size;
  size_t sqes_size;
};

static __thread struct ring *thread_ring;
static __thread int thread_ring_failed;
static pthread_key_t ring_key;
static pthread_once_t ring_key_once = PTHREAD_ONCE_INIT;
static const int uncorked = 0;
static const int corked = 1;

static void
ring_destroy (struct ring *ring)
{
  if (ring->sqes != NULL && ring->sqes != MAP_FAILED)
    munmap (ring->sqes, ring->sqes_size);
  if (ring->rings != NULL && ring->rings != MAP_FAILED)
    munmap (ring->rings, ring->rings_size);
  if (ring->fd >= 0)
    close (ring->fd);
  free (ring);
}

/* A thread that made a ring releases it when it ends. */
static void
ring_thread_ended (void *ring)
{
  ring_destroy (ring);
}

static void
ring_make_key (void)
{
  (void) pthread_key_create (&ring_key, ring_thread_ended);
}

/* A ring for the calling thread, or NULL when this kernel or process gives none. */
static struct ring *
ring_create (void)
{
  struct io_uring_params params;
  memset (&params, 0, sizeof params);
  int fd = (int) syscall (__NR_io_uring_setup, RING_ENTRIES, &params);
  if (fd < 0)
    return NULL;
  struct ring *ring = calloc (1, sizeof *ring);
  if (ring == NULL)
    {
      close (fd);
      return NULL;
    }
  ring->fd = fd;
  ring->entries = params.sq_entries;
  /* Both rings in one mapping: every kernel with the socket command has IORING_FEAT_SINGLE_MMAP. */
  size_t sq_size = params.sq_off.array + params.sq_entries * sizeof (unsigned);
  size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof (struct io_uring_cqe);
  ring->rings_size = sq_size > cq_size ? sq_size : cq_size;
  ring->sqes_size = params.sq_entries * sizeof (struct io_uring_sqe);
  if (!(params.features & IORING_FEAT_SINGLE_MMAP))
    {
      ring_destroy (ring);
      return NULL;
    }
  ring->rings = mmap (NULL, ring->rings_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                      IORING_OFF_SQ_RING);
  ring->sqes = mmap (NULL, ring->sqes_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd,
                     IORING_OFF_SQES);
  if (ring->rings == MAP_FAILED || ring->sqes == MAP_FAILED)
    {
      ring_destroy (ring);
      return NULL;
    }
  char *base = ring->rings;
  ring->sq_tail = (_Atomic unsigned *) (base + params.sq_off.tail);
  ring->sq_mask = (unsigned *) (base + params.sq_off.ring_mask);
  ring->sq_array = (unsigned *) (base + params.sq_off.array);
  ring->cq_head = (_Atomic unsigned *) (base + params.cq_off.head);
  ring->cq_tail = (_Atomic unsigned *) (base + params.cq_off.tail);
  ring->cq_mask = (unsigned *) (base + params.cq_off.ring_mask);
  ring->cqes = (struct io_uring_cqe *) (base + params.cq_off.cqes);
  return ring;
}

/* Writes one setsockopt (TCP_CORK, *value) command for `fd` into the submission queue at `index`. */
static void
ring_put_cork (struct ring *ring, unsigned index, int fd, const int *value, uint64_t user_data, uint8_t flags)
{
  struct io_uring_sqe *sqe = &ring->sqes[index];
  memset (sqe, 0, sizeof *sqe);
  sqe->opcode = IORING_OP_URING_CMD;
  sqe->flags = flags;
  sqe->fd = fd;
  sqe->cmd_op = SOCKET_URING_OP_SETSOCKOPT;
  sqe->addr = (uint64_t) (uint32_t) IPPROTO_TCP | ((uint64_t) (uint32_t) TCP_CORK << 32);
  sqe->splice_fd_in = (int32_t) sizeof *value; /* optlen */
  sqe->addr3 = (uint64_t) (uintptr_t) value;   /* optval */
  sqe->user_data = user_data;
  ring->sq_array[index] = index;
}

/* Queues "TCP_CORK off" for each socket (followed, with `recork`, by "TCP_CORK on" again, linked so
 * that it runs after), submits them in one call and reads the completions. Returns how many commands
 * failed, or -1 when the submission did (entries may then be left in the ring, which must be dropped).
 * A failed command's socket is set with setsockopt instead, so nothing stays held: its number may
 * have been closed and reused during the pass for a file that takes no socket commands, which says
 * nothing about the ring. */
static int
ring_uncork (struct ring *ring, const int *sockets, int count, int recork)
{
  const unsigned per_socket = recork ? 2u : 1u;
  if ((unsigned) count * per_socket > ring->entries)
    return -1;
  unsigned tail = atomic_load_explicit (ring->sq_tail, memory_order_relaxed);
  unsigned queued = 0;
  for (int i = 0; i < count; i++)
    {
      ring_put_cork (ring, (tail + queued++) & *ring->sq_mask, sockets[i], &uncorked, (uint64_t) i,
                     recork ? IOSQE_IO_LINK : 0);
      if (recork)
        ring_put_cork (ring, (tail + queued++) & *ring->sq_mask, sockets[i], &corked, (uint64_t) i, 0);
    }
  atomic_store_explicit (ring->sq_tail, tail + queued, memory_order_release);
  long submitted = syscall (__NR_io_uring_enter, ring->fd, queued, 0u, 0u, NULL, 0ul);
  if (submitted != (long) queued)
    return -1;

  int failed = 0;
  unsigned head = atomic_load_explicit (ring->cq_head, memory_order_relaxed);
  unsigned ready = atomic_load_explicit (ring->cq_tail, memory_order_acquire);
  for (; head != ready; head++)
    {
      const struct io_uring_cqe *cqe = &ring->cqes[head & *ring->cq_mask];
      if (cqe->res >= 0)
        continue;
      failed++;
      if (cqe->res != -EBADF && cqe->user_data < (uint64_t) count)
        {
          int fd = sockets[cqe->user_data];
          (void) setsockopt (fd, IPPROTO_TCP, TCP_CORK, &uncorked, sizeof uncorked);
          if (recork)
            (void) setsockopt (fd, IPPROTO_TCP, TCP_CORK, &corked, sizeof corked);
        }
    }
  atomic_store_explicit (ring->cq_head, head, memory_order_release);
  return failed;
}

/* The calling thread's ring, made on first use; NULL when rings do not work here. */
static struct ring *
ring_for_thread (void)
{
  if (thread_ring != NULL)
    return thread_ring;
  if (thread_ring_failed || !remvvm_uncork_ring_is_usable ())
    return NULL;
  pthread_once (&ring_key_once, ring_make_key);
  struct ring *ring = ring_create ();
  if (ring == NULL)
    {
      thread_ring_failed = 1;
      return NULL;
    }
  thread_ring = ring;
  (void) pthread_setspecific (ring_key, ring);
  return ring;
}

/* Forgets the calling thread's ring after a submission failed; the thread releases one socket at a
 * time from then on. */
static void
ring_give_up (void)
{
  if (thread_ring != NULL)
    {
      (void) pthread_setspecific (ring_key, NULL);
      ring_destroy (thread_ring);
      thread_ring = NULL;
    }
  thread_ring_failed = 1;
}

int
remvvm_uncork_ring_release (const int *sockets, int count, int recork)
{
  if (count < 1 || count * (recork ? 2 : 1) > RING_ENTRIES)
    return 0;
  struct ring *ring = ring_for_thread ();
  if (ring == NULL)
    return 0;
  if (ring_uncork (ring, sockets, count, recork) < 0)
    {
      ring_give_up ();
      return 0;
    }
  return 1;
}

int
remvvm_uncork_ring_is_usable (void)
{
  if (atomic_load_explicit (&ring_support, memory_order_relaxed) == RING_UNKNOWN)
    {
      /* Uncorking two fresh TCP sockets through a ring of its own tells whether the kernel (and a
       * seccomp filter, such as a container's) lets the command through. */
      int supported = 0;
      int sockets[2] = { socket (AF_INET, SOCK_STREAM, 0), socket (AF_INET, SOCK_STREAM, 0) };
      struct ring *ring = sockets[0] >= 0 && sockets[1] >= 0 ? ring_create () : NULL;
      if (ring != NULL)
        {
          supported = ring_uncork (ring, sockets, 2, 1) == 0;
          ring_destroy (ring);
        }
      for (int i = 0; i < 2; i++)
        if (sockets[i] >= 0)
          close (sockets[i]);
      int expected = RING_UNKNOWN;
      atomic_compare_exchange_strong (&ring_support, &expected, supported ? RING_USABLE : RING_UNUSABLE);
    }
  return atomic_load_explicit (&ring_support, memory_order_relaxed) == RING_USABLE;
}
