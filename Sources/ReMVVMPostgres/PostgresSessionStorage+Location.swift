import CLibPQ
import ReMVVMPersistence

extension PostgresSessionStorage {
    /// The database and its server, as the server's start line names them; never the user or the password.
    public var location: String { Self.location(of: url) }

    /// The database and server a libpq URI or keyword string names, read as libpq reads it (without connecting);
    /// libpq's defaults (a local socket, the user's database) where it names none.
    static func location(of url: String) -> String {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            if let error { PQfreemem(error) }
            return "PostgreSQL"
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val, value.pointee != 0 {
                values[String(cString: keyword)] = String(cString: value)
            }
            option += 1
        }
        let database = values["dbname"].map { "database '\($0)'" } ?? "the user's database"
        let host = values["host"] ?? values["hostaddr"] ?? "the local socket"
        let port = values["port"].map { ":\($0)" } ?? ""
        return "PostgreSQL, \(database) on \(host)\(port)"
    }
}
