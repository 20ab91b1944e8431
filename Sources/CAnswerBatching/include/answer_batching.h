/*
 * answer_batching.h - pushes the answers of one event-loop pass to the network together.
 *
 * A libmicrohttpd worker answers each ready connection in turn and sends every answer at once. A
 * client that holds many connections in one loop (a proxy, a load generator) is then woken once
 * per answer. Holding each answer back until the worker is about to wait for the next events lets
 * the client read a pass's answers in one wake-up.
 *
 * libmicrohttpd has no hook at the end of a pass, so this file defines epoll_wait: the process's
 * calls to it, libmicrohttpd's included, come here first, release what the calling thread holds,
 * and go on to the C library's epoll_pwait (the same call with no signal mask). It also defines
 * send and sendmsg, which add MSG_MORE when the calling thread holds the socket: the answer stays
 * queued as under TCP_CORK, without a setsockopt per answer to cork it (a system call the plain
 * libmicrohttpd server does not make). And it defines close, which drops a closed descriptor from the
 * thread's list, so that a socket reusing the number is not held by mistake. A thread that holds
 * nothing pays one thread-local load per call.
 *
 * Released one setsockopt at a time, each push can wake the client, which on a busy machine then
 * preempts the worker to read that one answer: the pass's answers trickle out again. Where the
 * kernel allows it, a pass's sockets are therefore released together in one io_uring submission
 * (uncork_ring.h), and the worker can be preempted only once, as that call returns.
 */
#ifndef ANSWER_BATCHING_H
#define ANSWER_BATCHING_H

/**
 * Whether the process's epoll_wait, send, sendmsg and close are the ones defined here, so that
 * libmicrohttpd's workers hold answers and release them before they wait. Nothing may be held
 * when it is not (0).
 */
int answer_batching_is_active (void);

/**
 * Whether this process can release a thread's held sockets in one system call (an io_uring
 * submission of socket commands, Linux 6.7 and later, when no seccomp filter forbids io_uring);
 * tried once, on sockets of its own.
 */
int answer_batching_can_release_in_one_call (void);

/**
 * Holds back what the calling thread sends (send, sendmsg) on the TCP socket `fd` until it next
 * calls epoll_wait or closes `fd`; only call it when answer_batching_is_active() said 1, and
 * only on a connected TCP socket (on any other kind, MSG_MORE means something else). With
 * `in_one_call` 1 (only when answer_batching_can_release_in_one_call() said 1), that thread's
 * next release of more than one socket is one system call; with 0, one setsockopt per socket.
 * Makes no system call. Returns 1 when held, 0 when not (a negative descriptor, or the thread
 * already holds the most it can): then data goes out as usual.
 */
int answer_batching_hold (int fd, int in_one_call);

/** Sockets the calling thread holds right now (for tests). */
int answer_batching_held_count (void);

/** Releases the calling thread made in one system call so far (for tests). */
int answer_batching_one_call_releases (void);

#endif /* ANSWER_BATCHING_H */
