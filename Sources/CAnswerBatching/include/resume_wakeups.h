/*
 * resume_wakeups.h - wakes each libmicrohttpd worker once per batch of resumes, not once per resume.
 *
 * MHD_resume_connection marks the connection and then writes to its worker's wake-up eventfd: a
 * system call per resumed connection, and a worker that wakes at the first write walks its
 * suspended connections while the batch is still being marked, so one batch can cost it two
 * walks. Between resume_wakeups_defer() and resume_wakeups_flush() on one thread, that thread's
 * eight-byte writes of the value 1 to anonymous-inode descriptors (eventfds) are instead noted, one
 * per descriptor, and the flush makes them: every worker that has resumed connections waits for the
 * flush, then finds all of them marked in one walk.
 *
 * It works by defining write: the process's calls to it come here first and go on to the C
 * library's. A thread that is not deferring pays one thread-local load per call.
 */
#ifndef RESUME_WAKEUPS_H
#define RESUME_WAKEUPS_H

/** Whether the process's write is the one defined here (otherwise deferring does nothing). */
int resume_wakeups_is_active (void);

/** Starts noting the calling thread's wake-up writes instead of making them. */
void resume_wakeups_defer (void);

/**
 * Makes the wake-up writes noted since resume_wakeups_defer(), one per descriptor, and stops
 * noting. Returns how many writes it made (for tests).
 */
int resume_wakeups_flush (void);

#endif /* RESUME_WAKEUPS_H */
