/*
 * worker_affinity.c - see include/worker_affinity.h.
 */
#define _GNU_SOURCE
#include "worker_affinity.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>

/* Set by the first worker_affinity_pin on a thread, even a failed one, so that it is tried once. */
static _Thread_local int pin_tried;
/* Set when the pin took; `unpinned` then holds the CPU set the thread had before, `pinned_set` its CPU. */
static _Thread_local int pinned;
static _Thread_local cpu_set_t unpinned;
static _Thread_local cpu_set_t pinned_set;

int
worker_affinity_cpus (int *cpus, int capacity)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  if (0 != sched_getaffinity (0, sizeof (set), &set))
    return -1;
  int count = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && count < capacity; cpu++)
    if (CPU_ISSET (cpu, &set))
      cpus[count++] = cpu;
  return count;
}

int
worker_affinity_pin_attempted (void)
{
  return pin_tried;
}

int
worker_affinity_pin (int cpu)
{
  pin_tried = 1;
  if ( (cpu < 0) || (cpu >= CPU_SETSIZE) )
    return EINVAL;
  cpu_set_t before;
  int error = pthread_getaffinity_np (pthread_self (), sizeof (before), &before);
  if (0 != error)
    return error;
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  error = pthread_setaffinity_np (pthread_self (), sizeof (set), &set);
  if (0 != error)
    return error;
  unpinned = before;
  pinned_set = set;
  pinned = 1;
  return 0;
}

/* A sanitizer wraps pthread_create itself, weakly, to follow every thread; a definition here would
 * replace its wrapper, and the sanitizer would then crash on the first thread it never saw start. */
#if defined(__has_feature)
#if __has_feature (thread_sanitizer) || __has_feature (address_sanitizer)
#define WORKER_AFFINITY_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define WORKER_AFFINITY_SANITIZED 1
#endif

#ifdef WORKER_AFFINITY_SANITIZED

int
worker_affinity_unpins_children (void)
{
  return 0;
}

int
worker_affinity_is_sanitized (void)
{
  return 1;
}

#else

typedef int (*pthread_create_function) (pthread_t *, const pthread_attr_t *,
                                        void *(*)(void *), void *);

/* The next pthread_create after this one: the C library's. */
static pthread_create_function next_create;

int
pthread_create (pthread_t *thread, const pthread_attr_t *attributes,
                void *(*start)(void *), void *argument)
{
  pthread_create_function create = __atomic_load_n (&next_create, __ATOMIC_ACQUIRE);
  if (NULL == create)
  {
    /* Every thread that races here finds the same function. */
    create = (pthread_create_function) dlsym (RTLD_NEXT, "pthread_create");
    if (NULL == create)
      return EAGAIN;
    __atomic_store_n (&next_create, create, __ATOMIC_RELEASE);
  }
  if (! pinned)
    return create (thread, attributes, start, argument);
  /* A new thread takes its creator's CPU set when it is created, so the worker widens its own for
   * the moment of the call. Setting the child's afterwards would race with its end: once it has
   * exited, pthread_setaffinity_np on it reaches the calling thread instead. */
  (void) pthread_setaffinity_np (pthread_self (), sizeof (unpinned), &unpinned);
  int result = create (thread, attributes, start, argument);
  (void) pthread_setaffinity_np (pthread_self (), sizeof (pinned_set), &pinned_set);
  return result;
}

int
worker_affinity_unpins_children (void)
{
  return dlsym (RTLD_DEFAULT, "pthread_create") == (void *) pthread_create;
}

int
worker_affinity_is_sanitized (void)
{
  return 0;
}

#endif /* WORKER_AFFINITY_SANITIZED */
