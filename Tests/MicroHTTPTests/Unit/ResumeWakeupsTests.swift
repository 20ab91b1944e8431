import CAnswerBatching
import CMicroHTTPD
import Dispatch
import Glibc
import Testing

/// The hook that wakes each worker once per resume batch (`resume_wakeups.h`), on real eventfds and pipes.
@Suite("Resume wake-ups")
struct ResumeWakeupsTests {
    @Test func theProcessWriteIsTheHook() {
        // What libmicrohttpd's wake-up writes resolve to: if this fails, every resume wakes its worker at once.
        #expect(resume_wakeups_is_active() == 1)
    }

    @Test func deferredWakeUpsOfOneDescriptorLeaveAsOneAtTheFlush() throws {
        try withEventDescriptor { wakeup in
            resume_wakeups_defer()
            for _ in 0..<3 { #expect(Self.write(1, to: wakeup) == 8) }  // As MHD_resume_connection writes.
            #expect(!Self.isReadable(wakeup), "a deferred wake-up must wait for the flush")
            #expect(resume_wakeups_flush() == 1)
            #expect(Self.isReadable(wakeup))
            #expect(Self.read(wakeup) == 1)  // One wake-up, however many resumes asked for it.
            #expect(resume_wakeups_flush() == 0)  // Nothing noted since.
        }
    }

    @Test func eachDescriptorIsWokenAtTheFlush() throws {
        try withEventDescriptor { first in
            try withEventDescriptor { second in
                resume_wakeups_defer()
                #expect(Self.write(1, to: first) == 8)
                #expect(Self.write(1, to: second) == 8)
                #expect(Self.write(1, to: first) == 8)
                #expect(resume_wakeups_flush() == 2)
                #expect(Self.read(first) == 1)
                #expect(Self.read(second) == 1)
            }
        }
    }

    @Test func writesThatAreNotWakeUpsLeaveAtOnce() throws {
        try withEventDescriptor { counter in
            var pipe: [Int32] = [0, 0]
            try #require(Glibc.pipe(&pipe) == 0)
            defer {
                close(pipe[0])
                close(pipe[1])
            }
            resume_wakeups_defer()
            #expect(Self.write(2, to: counter) == 8)  // Another value: counted, not a wake-up.
            #expect(Self.write(1, to: pipe[1]) == 8)  // A descriptor with a file type.
            let text = Array("not eight".utf8)
            #expect(text.withUnsafeBytes { Glibc.write(pipe[1], $0.baseAddress, $0.count) } == text.count)
            #expect(Self.isReadable(counter))
            #expect(Self.isReadable(pipe[0]))
            #expect(resume_wakeups_flush() == 0)
            #expect(Self.read(counter) == 2)
        }
    }

    @Test func anotherThreadsWakeUpsAreNotDeferred() throws {
        try withEventDescriptor { wakeup in
            let go = DispatchSemaphore(value: 0)
            let written = DispatchSemaphore(value: 0)
            let result = WrittenCount()
            // Handed to another thread before this one defers, so that nothing the queue writes waits too.
            DispatchQueue.global().async {
                go.wait()
                result.value = Self.write(1, to: wakeup)
                written.signal()
            }
            resume_wakeups_defer()
            defer { _ = resume_wakeups_flush() }
            go.signal()
            #expect(written.wait(timeout: .now() + 10) == .success)
            #expect(result.value == 8)
            #expect(Self.isReadable(wakeup), "only the deferring thread's own writes wait")
        }
    }

    @Test func withoutDeferringAWakeUpLeavesAtOnce() throws {
        try withEventDescriptor { wakeup in
            #expect(Self.write(1, to: wakeup) == 8)
            #expect(Self.isReadable(wakeup))
        }
    }

    // MARK: - Helpers

    /// The count another thread's write returned. Safety: written before the semaphore is signalled and read
    /// after it was waited for, which orders the two.
    private final class WrittenCount: @unchecked Sendable {
        var value = 0
    }

    private func withEventDescriptor(_ body: (Int32) throws -> Void) throws {
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try body(descriptor)
    }

    private static func write(_ value: UInt64, to descriptor: Int32) -> Int {
        var value = value
        return withUnsafeBytes(of: &value) { Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }

    private static func read(_ descriptor: Int32) -> UInt64? {
        var value: UInt64 = 0
        let count = withUnsafeMutableBytes(of: &value) { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        return count == 8 ? value : nil
    }

    private static func isReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) == 1
    }
}
