import Testing

@testable import ReMVVMPostgres

/// What the server's start line says of a PostgreSQL storage: the database and its server, read from the URL as
/// libpq reads it, and never the user or the password. No database needed.
@Suite struct PostgresLocationTests {
    @Test(arguments: [
        ("postgresql://remvvm:s3cret@db.example:5433/sessions", "PostgreSQL, database 'sessions' on db.example:5433"),
        ("postgresql://127.0.0.1/remvvm?password=s3cret", "PostgreSQL, database 'remvvm' on 127.0.0.1"),
        ("host=/run/postgresql dbname=app password=s3cret", "PostgreSQL, database 'app' on /run/postgresql"),
        ("postgresql://", "PostgreSQL, the user's database on the local socket"),
        ("not a url at all", "PostgreSQL"),
    ])
    func theLocationNamesTheDatabaseAndServerButNoSecret(url: String, location: String) {
        #expect(PostgresSessionStorage.location(of: url) == location)
        #expect(!PostgresSessionStorage.location(of: url).contains("s3cret"))
    }
}
