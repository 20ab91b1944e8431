/*
 * remvvm_socket_cork.h - holds a TCP socket's answers back, and lets them go.
 *
 * A worker corks the socket of each answer its handler gives during a pass of its event loop, before
 * libmicrohttpd writes it, and uncorks them all when the pass ends, so that a client holding many
 * connections reads a pass's answers in one wake-up. libmicrohttpd keeps its own idea of a socket's
 * TCP_CORK and TCP_NODELAY state, and on Linux, once a connection has answered, it never changes them
 * again for a final write: a cork set here stays until the release here.
 */
#ifndef REMVVM_SOCKET_CORK_H
#define REMVVM_SOCKET_CORK_H

/** Sets (on 1) or clears (on 0) TCP_CORK on `fd`; clearing sends what is queued. Returns 0 or errno. */
int remvvm_socket_cork (int fd, int on);

#endif /* REMVVM_SOCKET_CORK_H */
