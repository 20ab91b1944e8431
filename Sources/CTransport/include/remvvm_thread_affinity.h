/*
 * remvvm_thread_affinity.h - the CPU sets of the transport's own worker threads.
 *
 * The C library's CPU sets are macros Swift cannot call, hence these functions. They only touch
 * the calling thread, which the transport created itself; nothing else in the process is changed.
 */
#ifndef REMVVM_THREAD_AFFINITY_H
#define REMVVM_THREAD_AFFINITY_H

/**
 * Writes the CPUs the calling thread may run on, in increasing order, into `cpus` (at most
 * `capacity` of them). Returns how many it wrote, or -1 when the kernel would not say.
 */
int remvvm_allowed_cpus (int *cpus, int capacity);

/**
 * How many CPUs the calling thread may run on (its affinity mask, so a container's or `taskset`'s
 * restriction counts); the number of online CPUs when the kernel would not say, at least 1.
 */
int remvvm_cpu_count (void);

/**
 * Restricts the calling thread to the one CPU `cpu`. Returns 0, or the error number when the kernel
 * refused (the CPU is outside the process's set, for example); the thread then keeps its CPU set.
 */
int remvvm_pin_calling_thread (int cpu);

#endif /* REMVVM_THREAD_AFFINITY_H */
