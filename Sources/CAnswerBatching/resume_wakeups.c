/*
 * resume_wakeups.c - see include/resume_wakeups.h.
 *
 * Only the deferring thread reads or changes its list, so it needs no lock. What is deferred is
 * narrow on purpose: eight bytes holding the value 1 (what libmicrohttpd writes to wake a worker)
 * to a descriptor with no file type (an anonymous inode: an eventfd; the other anonymous kinds
 * refuse such writes anyway). Coalescing writes to an eventfd only lowers its counter, which a
 * wake-up descriptor's reader discards. Anything else is written at once, and so is a wake-up that
 * finds the list full.
 */
#define _GNU_SOURCE
#include "resume_wakeups.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One descriptor per libmicrohttpd worker; a server runs a handful. */
enum { DEFERRED_CAPACITY = 64 };

static __thread int deferring;
static __thread int deferred[DEFERRED_CAPACITY];
static __thread int deferred_count;

/* The C library's write, found before main runs; until then, and if not found, the system call. */
static ssize_t (*next_write) (int, const void *, size_t);

__attribute__ ((constructor)) static void
find_next_write (void)
{
  next_write = (ssize_t (*) (int, const void *, size_t)) dlsym (RTLD_NEXT, "write");
}

static ssize_t
write_now (int fd, const void *buffer, size_t length)
{
  if (NULL == next_write)
    return syscall (SYS_write, fd, buffer, length);
  return next_write (fd, buffer, length);
}

static int
is_wakeup (const void *buffer, size_t length)
{
  uint64_t value;
  if (8 != length || NULL == buffer)
    return 0;
  memcpy (&value, buffer, sizeof value);
  return 1 == value;
}

static int
is_noted (int fd)
{
  for (int i = 0; i < deferred_count; i++)
    if (deferred[i] == fd)
      return 1;
  return 0;
}

static int
has_no_file_type (int fd)
{
  struct stat status;
  return 0 == fstat (fd, &status) && 0 == (status.st_mode & S_IFMT);
}

ssize_t
write (int fd, const void *buffer, size_t length)
{
  if (deferring && is_wakeup (buffer, length))
    {
      if (is_noted (fd))
        return (ssize_t) length;
      if (deferred_count < DEFERRED_CAPACITY && has_no_file_type (fd))
        {
          deferred[deferred_count++] = fd;
          return (ssize_t) length;
        }
    }
  return write_now (fd, buffer, length);
}

int
resume_wakeups_is_active (void)
{
  return dlsym (RTLD_DEFAULT, "write") == (void *) &write;
}

void
resume_wakeups_defer (void)
{
  deferring = 1;
}

int
resume_wakeups_flush (void)
{
  const uint64_t one = 1;
  const int count = deferred_count;
  deferring = 0;
  deferred_count = 0;
  for (int i = 0; i < count; i++)
    {
      /* EAGAIN means the counter is already as high as it goes: the reader wakes anyway. */
      while (write_now (deferred[i], &one, sizeof one) < 0 && EINTR == errno)
        ;
    }
  return count;
}
