/*
 * accept_waiting.c - see include/remvvm_accept_waiting.h.
 */
#define _GNU_SOURCE
#include "remvvm_accept_waiting.h"

int
remvvm_accept_waiting (int fd, struct sockaddr *address, socklen_t *length)
{
  return accept4 (fd, address, length, SOCK_CLOEXEC);
}
