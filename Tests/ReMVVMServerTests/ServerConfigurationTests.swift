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
        configuration.transportTuning.batchesAnswers = false
        configuration.transportTuning.releasesAnswersInOneCall = false
        configuration.transportTuning.pinsWorkers = true
        let transport = configuration.transport
        #expect(transport.host == "0.0.0.0")
        #expect(transport.port == 9090)
        #expect(transport.threadPoolSize == 3)
        #expect(transport.connectionLimit == 123)
        #expect(transport.perClientConnectionLimit == 7)
        #expect(transport.connectionTimeout == 11)
        #expect(transport.connectionMemoryLimit == 16 * 1024)
        #expect(transport.maxBodySize == 4096)
        #expect(!transport.tuning.batchesAnswers)
        #expect(!transport.tuning.releasesAnswersInOneCall)
        #expect(transport.tuning.pinsWorkers)
    }

    @Test func theDefaultsAreTheTransportsDefaults() {
        let transport = ServerConfiguration().transport
        let defaults = HTTPServerConfiguration()
        #expect(transport.tuning == defaults.tuning)
        #expect(transport.threadPoolSize == defaults.threadPoolSize)
        #expect(transport.connectionMemoryLimit == defaults.connectionMemoryLimit)
        #expect(transport.perClientConnectionLimit == defaults.perClientConnectionLimit)
        #expect(transport.requestHeadTimeout == defaults.requestHeadTimeout)
        #expect(transport.requestBodyTimeout == defaults.requestBodyTimeout)
        #expect(transport.streamBufferBudget == defaults.streamBufferBudget)
    }
}
