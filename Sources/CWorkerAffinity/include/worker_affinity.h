/*
 * worker_affinity.h - keeps each libmicrohttpd worker thread on a CPU of its own.
 *
 * The workers are libmicrohttpd's threads, so the transport cannot pin them when they are
 * created; it pins each one from inside its first callback instead, on that thread. The C
 * library's CPU sets are macros Swift cannot call, hence these functions.
 *
 * A new Linux thread starts with its creator's CPU set, and a worker does create threads: the
 * thread that queues work on libdispatch grows its pool. So this file also defines
 * pthread_create: it creates the thread with the C library's pthread_create, and when the
 * creator is a pinned worker, the worker takes back the CPU set it had before it was pinned for
 * the moment of the call, so the new thread starts with that set. (Not in sanitizer builds: see
 * worker_affinity_is_sanitized.)
 */
#ifndef WORKER_AFFINITY_H
#define WORKER_AFFINITY_H

/**
 * Writes the CPUs the calling thread may run on, in increasing order, into `cpus` (at most
 * `capacity` of them). Returns how many it wrote, or -1 when the kernel would not say.
 */
int worker_affinity_cpus (int *cpus, int capacity);

/** Whether worker_affinity_pin already ran on the calling thread (1), successfully or not, or not (0). */
int worker_affinity_pin_attempted (void);

/**
 * Restricts the calling thread to the one CPU `cpu` and remembers that it tried. Returns 0, or the
 * error number when the kernel refused (the CPU is outside the process's set, for example); the
 * thread then keeps its CPU set.
 */
int worker_affinity_pin (int cpu);

/**
 * Whether the process's pthread_create is the one defined here (1), so that threads started by a
 * pinned worker do not inherit its single CPU, or not (0).
 */
int worker_affinity_unpins_children (void);

/**
 * Whether this file was built for ThreadSanitizer or AddressSanitizer (1): it then leaves
 * pthread_create to the sanitizer, and a pinned worker's threads keep its CPU.
 */
int worker_affinity_is_sanitized (void);

#endif /* WORKER_AFFINITY_H */
