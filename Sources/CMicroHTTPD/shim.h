/*
 * shim.h - the C face of libmicrohttpd 0.9.75 as Swift sees it.
 *
 * Swift does not import C variadic functions, so every variadic MHD entry point the
 * transport needs gets a small non-variadic `static inline` wrapper here. Macros that
 * Swift cannot import (casts) are re-exported as constants.
 *
 * The header also pulls in <sys/epoll.h> and <sys/eventfd.h>: Swift's Glibc module does
 * not export them, and the transport needs them to notice clients that leave while their
 * connection is suspended (MHD stops watching suspended sockets). Nothing else lives here.
 */
#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <errno.h>
#include <time.h>
#include <string.h>
#include <strings.h>
#include <microhttpd.h>

/** Returned by a content reader at the regular end of a streamed body (the macro is a cast). */
static const ssize_t CMHD_CONTENT_READER_END_OF_STREAM = MHD_CONTENT_READER_END_OF_STREAM;

/** Returned by a content reader to abort a streamed body and close the connection. */
static const ssize_t CMHD_CONTENT_READER_END_WITH_ERROR = MHD_CONTENT_READER_END_WITH_ERROR;

/** Size of a response whose length is not known in advance (chunked encoding). */
static const uint64_t CMHD_SIZE_UNKNOWN = MHD_SIZE_UNKNOWN;

/**
 * Starts a daemon: MHD_start_daemon with the access handler, the request-completed
 * callback, the URI callback (called with each request line, before its header fields),
 * the connection callback (NULL for none) and an MHD_OPTION_END-terminated option array
 * (MHD_OPTION_ARRAY), because the variadic original cannot be called from Swift. Returns
 * NULL on failure.
 */
static inline struct MHD_Daemon *
cmhd_start_daemon (unsigned int flags,
                   uint16_t port,
                   MHD_AccessHandlerCallback handler,
                   void *handler_cls,
                   MHD_RequestCompletedCallback completed,
                   void *completed_cls,
                   void *(*uri_seen) (void *cls, const char *uri, struct MHD_Connection *connection),
                   void *uri_seen_cls,
                   MHD_NotifyConnectionCallback connection_notified,
                   void *connection_notified_cls,
                   const struct MHD_OptionItem *options)
{
  return MHD_start_daemon (flags, port, NULL, NULL, handler, handler_cls,
                           MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                           MHD_OPTION_URI_LOG_CALLBACK, uri_seen, uri_seen_cls,
                           MHD_OPTION_NOTIFY_CONNECTION,
                           connection_notified, connection_notified_cls,
                           MHD_OPTION_ARRAY, options,
                           MHD_OPTION_END);
}

/** The port the daemon is bound to (useful after binding port 0); 0 if unknown. */
static inline uint16_t
cmhd_daemon_bind_port (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info =
    MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_BIND_PORT);
  return (NULL == info) ? 0 : info->port;
}

/** The daemon's own epoll descriptor (external event loop mode), for the caller's epoll set; -1 if unknown. */
static inline int
cmhd_daemon_epoll_fd (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info =
    MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_EPOLL_FD);
  return (NULL == info) ? -1 : info->epoll_fd;
}

/** Connections the daemon currently holds, suspended ones included; 0 if unknown. */
static inline unsigned int
cmhd_daemon_current_connections (struct MHD_Daemon *daemon)
{
  const union MHD_DaemonInfo *info =
    MHD_get_daemon_info (daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
  return (NULL == info) ? 0 : info->num_connections;
}

/** The peer address of a connection (owned by MHD, valid while the connection lives); NULL if unknown. */
static inline const struct sockaddr *
cmhd_connection_client_address (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  return (NULL == info) ? NULL : info->client_addr;
}

/** The size in bytes of the request head as received (request line and header fields); 0 if unknown. */
static inline size_t
cmhd_connection_request_head_size (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  return (NULL == info) ? 0 : info->header_size;
}

/**
 * How many values libmicrohttpd parsed out of the request head (header fields, cookies and query
 * arguments together); each takes an entry of the connection's memory pool. The kinds are bit flags,
 * which Swift cannot combine on the imported closed enum.
 */
static inline int
cmhd_connection_parsed_value_count (struct MHD_Connection *connection)
{
  return MHD_get_connection_values_n (connection,
                                      (enum MHD_ValueKind) (MHD_HEADER_KIND | MHD_COOKIE_KIND
                                                            | MHD_GET_ARGUMENT_KIND),
                                      NULL, NULL);
}

/** The socket of a connection (owned by MHD, valid while the connection lives); -1 if unknown. */
static inline int
cmhd_connection_socket (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  return (NULL == info) ? -1 : (int) info->connect_fd;
}

/** A connection's socket context (what the connection callback stored for it); NULL if none. */
static inline void *
cmhd_connection_socket_context (struct MHD_Connection *connection)
{
  const union MHD_ConnectionInfo *info =
    MHD_get_connection_info (connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return (NULL == info) ? NULL : info->socket_context;
}

/** What cmhd_connection_content_lengths_differ has seen so far. */
struct cmhd_content_lengths
{
  const char *first;
  size_t first_size;
  int differ;
};

/** The iterator of cmhd_connection_content_lengths_differ: compares each Content-Length field with the first. */
static enum MHD_Result
cmhd_compare_content_length (void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                             const char *value, size_t value_size)
{
  (void) kind;
  if ((14 != key_size) || (0 != strncasecmp (key, "Content-Length", 14)))
    return MHD_YES;
  struct cmhd_content_lengths *seen = cls;
  if (NULL == seen->first)
  {
    seen->first = value;
    seen->first_size = value_size;
    return MHD_YES;
  }
  /* Leading zeros or blanks may make equal lengths differ here: such a request is refused too. */
  if ((value_size != seen->first_size) || (0 != memcmp (value, seen->first, value_size)))
  {
    seen->differ = 1;
    return MHD_NO;
  }
  return MHD_YES;
}

/**
 * Whether the request has Content-Length header fields whose values differ (RFC 9112 section 6.3):
 * one walk of the parsed header fields, comparing names by length first. In C because it runs for
 * every request with a body and is called back once per field.
 */
static inline int
cmhd_connection_content_lengths_differ (struct MHD_Connection *connection)
{
  struct cmhd_content_lengths seen = { NULL, 0, 0 };
  (void) MHD_get_connection_values_n (connection, MHD_HEADER_KIND, cmhd_compare_content_length, &seen);
  return seen.differ;
}

/**
 * Sets a connection's inactivity timeout to `seconds` (MHD_CONNECTION_OPTION_TIMEOUT; 0: none):
 * the daemon closes the connection once it has been inactive, and not suspended, that long.
 * Call it on the thread that runs the daemon. Returns MHD_YES on success.
 */
static inline enum MHD_Result
cmhd_connection_set_timeout (struct MHD_Connection *connection, unsigned int seconds)
{
  return MHD_set_connection_option (connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/**
 * Writes the current time as an HTTP date ("Thu, 26 Nov 2026 14:50:00 GMT", RFC 9110) into
 * `buffer` of `capacity` bytes, NUL-terminated; returns its length, 0 if it did not fit.
 */
static inline size_t
cmhd_http_date (char *buffer, size_t capacity)
{
  time_t now = time (NULL);
  struct tm utc;
  if (NULL == gmtime_r (&now, &utc))
    return 0;
  return strftime (buffer, capacity, "%a, %d %b %Y %H:%M:%S GMT", &utc);
}

/**
 * Writes a whole answer straight to a connection's socket, past libmicrohttpd, and shuts the
 * socket down both ways, so that libmicrohttpd sees the end of the connection and closes it.
 * For requests whose head left the connection's memory pool no room for libmicrohttpd to write
 * any answer. The socket is new to this answer (libmicrohttpd has written nothing for the
 * request) and the answer is small, so it fits the socket's send buffer. Returns 1 when every
 * byte was handed to the kernel.
 */
static inline int
cmhd_connection_answer_and_shut_down (struct MHD_Connection *connection,
                                      const void *bytes,
                                      size_t count)
{
  int fd = cmhd_connection_socket (connection);
  if (fd < 0)
    return 0;
  size_t sent = 0;
  while (sent < count)
  {
    ssize_t written = send (fd, (const char *) bytes + sent, count - sent,
                            MSG_NOSIGNAL | MSG_DONTWAIT);
    if (written > 0)
      sent += (size_t) written;
    else if ((written < 0) && (EINTR == errno))
      continue;
    else
      break;
  }
  (void) shutdown (fd, SHUT_RDWR);
  return sent == count;
}

#endif /* CMICROHTTPD_SHIM_H */
