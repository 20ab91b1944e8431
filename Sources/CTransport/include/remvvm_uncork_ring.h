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
 * (made on first use), which pushes what they hold, and with `recork` 1 sets it again right after
 * each (the socket stays corked for its next answer). Returns 1 when done, 0 when not (no socket,
 * more than a ring holds, or rings or the socket command not available here): then the caller sets
 * them itself.
 */
int remvvm_uncork_ring_release (const int *sockets, int count, int recork);

/** Whether this process's releases go through rings: tried once, on two sockets of its own. */
int remvvm_uncork_ring_is_usable (void);

#endif /* REMVVM_UNCORK_RING_H */
