/*
 * remvvm_uncork_ring.h - pushes many held sockets in one system call.
 *
 * Releasing a pass's answers one setsockopt at a time wakes the client once per socket, and on a
 * busy machine the woken client preempts the releasing worker at the end of nearly every call, to
 * read one answer. Submitted together through an io_uring, the pushes all happen inside one
 * io_uring_enter, and the worker can be preempted once, when it returns.
 */
#ifndef REMVVM_UNCORK_RING_H
#define REMVVM_UNCORK_RING_H

/**
 * Removes TCP_CORK from `count` sockets in one io_uring submission on the calling thread's ring
 * (made on first use). Returns 1 when done, 0 when not (fewer than two sockets, more than a ring
 * holds, or rings or the socket command not available here): then the caller uncorks them itself.
 */
int remvvm_uncork_ring_release (const int *sockets, int count);

/** Whether this process's releases go through rings: tried once, on two sockets of its own. */
int remvvm_uncork_ring_is_usable (void);

#endif /* REMVVM_UNCORK_RING_H */
