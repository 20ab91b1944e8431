/*
 * remvvm_accept_waiting.h - takes a connection waiting on a listening socket, without blocking.
 *
 * A draining worker hands the connections still waiting on the listening socket to its daemon before
 * the socket closes, which would reset them. accept4 needs _GNU_SOURCE, which Swift's Glibc does not
 * define; this file does.
 */
#ifndef REMVVM_ACCEPT_WAITING_H
#define REMVVM_ACCEPT_WAITING_H

#include <sys/socket.h>

/**
 * Accepts one connection waiting on the non-blocking listening socket `fd` (close-on-exec), writing its
 * peer's address to `address` (`*length` bytes, updated). Returns the new socket, or -1 with errno set
 * (EAGAIN when none waits).
 */
int remvvm_accept_waiting (int fd, struct sockaddr *address, socklen_t *length);

#endif /* REMVVM_ACCEPT_WAITING_H */
