/*
 * socket_cork.c - see include/remvvm_socket_cork.h.
 */
#include "remvvm_socket_cork.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

int
remvvm_socket_cork (int fd, int on)
{
  const int value = on ? 1 : 0;
  return 0 == setsockopt (fd, IPPROTO_TCP, TCP_CORK, &value, sizeof value) ? 0 : errno;
}
