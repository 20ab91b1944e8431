/*
 * thread_affinity.c - see include/remvvm_thread_affinity.h.
 */
#define _GNU_SOURCE
#include "remvvm_thread_affinity.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

int
remvvm_allowed_cpus (int *cpus, int capacity)
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
remvvm_cpu_count (void)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  if (0 == sched_getaffinity (0, sizeof (set), &set))
    {
      int count = CPU_COUNT (&set);
      if (count > 0)
        return count;
    }
  long online = sysconf (_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int) online : 1;
}

int
remvvm_pin_calling_thread (int cpu)
{
  if ( (cpu < 0) || (cpu >= CPU_SETSIZE) )
    return EINVAL;
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  return pthread_setaffinity_np (pthread_self (), sizeof (set), &set);
}
