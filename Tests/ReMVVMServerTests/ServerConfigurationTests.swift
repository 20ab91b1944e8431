import MicroHTTP
import Testing

@testable import ReMVVMServer

/// What an operator sets on the server reaches the transport unchanged.
@Suite("Server configuration")
struct ServerConfigurationTests {
    @Test func everyTransportSettingReachesTheTransport() {
        var configuration = ServerConfiguration()
        configuration.host = "0.0.0.0"
        configuration.port = 9090
        configuration.threads = 3
        configuration.connectionLimit = 123
        configuration.connectionsPerClient = 7
        configuration.connectionTimeout = 11
        configuration.connectionMemory = 16 * 1024
        configuration.maxBodySize = 4096
        configuration.batchesAnswers = false
        configuration.releasesAnswersInOneCall = false
        configuration.pinsWorkers = true
        configuration.maxResumeDelay = .milliseconds(3)
        let transport = configuration.transport
        #expect(transport.host == "0.0.0.0")
        #expect(transport.port == 9090)
        #expect(transport.threadPoolSize == 3)
        #expect(transport.connectionLimit == 123)
        #expect(transport.perClientConnectionLimit == 7)
        #expect(transport.connectionTimeout == 11)
        #expect(transport.connectionMemoryLimit == 16 * 1024)
        #expect(transport.maxBodySize == 4096)
        #expect(!transport.batchesAnswers)
        #expect(!transport.releasesAnswersInOneCall)
        #expect(transport.pinsWorkers)
        #expect(transport.maxResumeDelay == .milliseconds(3))
    }

    @Test func theDefaultsAreTheTransportsDefaults() {
        let transport = ServerConfiguration().transport
        let defaults = HTTPServerConfiguration()
        #expect(transport.maxResumeDelay == defaults.maxResumeDelay)
        #expect(transport.batchesAnswers == defaults.batchesAnswers)
        #expect(transport.pinsWorkers == defaults.pinsWorkers)
        #expect(transport.connectionMemoryLimit == defaults.connectionMemoryLimit)
    }
}
