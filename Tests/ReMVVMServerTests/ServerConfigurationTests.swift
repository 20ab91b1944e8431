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

    /// The budgets a client can hit are on by default (issue 44).
    @Test func theBudgetsAreOnByDefault() {
        let configuration = ServerConfiguration()
        #expect(configuration.maxViewBytes == 1 << 20)
        #expect(configuration.maxViewBytes <= ServerConfiguration.maxViewBytesLimit)
        #expect(configuration.sessionCreationBurst == 20)
        #expect(configuration.sessionCreationRate == 5)
        #expect(configuration.unusedSessionTTL == .seconds(60))
        #expect(configuration.trustedProxies.isEmpty)
    }

    /// A view budget a stream's buffer could not hold is refused at start, naming the values.
    @Test(arguments: [0, ServerConfiguration.maxViewBytesLimit + 1])
    func aViewBudgetOutOfRangeIsRefusedAtStart(maxViewBytes: Int) throws {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.maxViewBytes = maxViewBytes
        let server = StoreServer(TestApp.definition(), configuration: configuration)
        let error = #expect(throws: StoreServerError.self) { try server.start() }
        #expect(error == .invalidConfiguration)
        #expect(error?.description.contains("maxViewBytes is \(maxViewBytes)") == true)
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
