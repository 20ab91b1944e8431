/// How the worker threads run their event loops: choices measured on the project's benchmarks, switchable by
/// the executable for comparisons, and not part of the public configuration.
package struct TransportTuning: Sendable, Equatable {
    /// Whether the answers a worker's handlers give during one pass of its event loop go out together when the
    /// pass ends, instead of one by one as each is queued (see ``WorkerLoop``).
    ///
    /// A client holding many keep-alive connections in one loop (a reverse proxy, a load generator) is then woken
    /// once per pass rather than once per answer. Such a connection is corked (`TCP_CORK`) at its first answer
    /// and stays corked; the end of each pass pushes and corks again those answered on, a share of one io_uring
    /// call (``releasesAnswersInOneCall``) or two `setsockopt`s each. An answer waits at most for the rest of its
    /// pass: the other requests that were ready at the same moment. Only answers given while the handler runs
    /// are held; a connection that parks or streams is uncorked, so long-poll answers and stream chunks go out
    /// at once.
    package var batchesAnswers = true

    /// Whether a worker releases the answers it held during a pass in one system call (an io_uring submission of
    /// socket commands, Linux 6.7 and later, in a process that may use io_uring) rather than one `setsockopt`
    /// each; elsewhere they are released one by one. Only matters with ``batchesAnswers``.
    package var releasesAnswersInOneCall = true

    /// Whether worker `k` is kept on the `k`-th CPU this process may run on (round robin when there are more
    /// workers), set on the thread the transport creates. Off: a pinned worker cannot move to an idle CPU, and
    /// threads it starts (libdispatch grows its pool from the thread that queues work) inherit its one CPU.
    package var pinsWorkers = false

    /// The longest a queued resume waits for others to share libmicrohttpd's walk of the suspended connections
    /// with it (``ResumePacing``), reached with 5,000 connections parked on a worker and shorter in proportion
    /// below; zero, the default, resumes everything queued at every pass.
    ///
    /// A worker already gathers every resume queued since its last pass into one walk, so pacing on top of that
    /// only delays: with 8 ms, one long-poll on each of 10,000 sessions took 1.16-1.25 times as long as with the
    /// hooks' resume thread (`bench/ab.sh`, BENCHMARKS.md), and without pacing 1.02; against nginx+nchan, 0.86
    /// without and 1.04 with it.
    package var maxResumeDelay: Duration = .zero

    /// The measured defaults.
    package init() {}
}
