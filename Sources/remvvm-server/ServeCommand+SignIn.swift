import ArgumentParser
import ExampleSignIn
import Foundation
import Logging
import ReMVVM
import ReMVVMServer

extension ServeCommand {
    /// The example's sign-in (JWTs, when a key file is given) and its own routes (announcements, `/v1/me`).
    func signIn(environment: Environment, logger: Logger) async throws -> (Authentication?, [AppRoute]) {
        var authentication: Authentication?
        if let path = jwtKeyFile ?? environment["REMVVM_JWT_KEY_FILE"] {
            let everyRequest = try jwtEveryRequest || environment.isOn("REMVVM_JWT_EVERY_REQUEST")
            do {
                let signIn = try await JWTSignIn.load(keyFile: path)
                authentication = Authentication(
                    signIn, everyRequest: everyRequest, challenge: "Bearer realm=\"remvvm\"")
            } catch {
                throw ValidationError("\(error)")
            }
            logger.info(
                "sign-in with JWTs: each session belongs to its JWT's subject",
                metadata: ["jwt.every_request": "\(everyRequest)"])
        }
        var adminToken: String?
        if let path = adminTokenFile ?? environment["REMVVM_ADMIN_TOKEN_FILE"] {
            do {
                adminToken = try String(contentsOfFile: path, encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                throw ValidationError("cannot read the admin token file '\(path)': \(error.localizedDescription)")
            }
            guard adminToken?.utf8.count ?? 0 >= 16 else {
                throw ValidationError("the admin token in '\(path)' is shorter than 16 characters")
            }
        }
        let routes = ExampleRoutes.all(adminToken: adminToken, signsIn: authentication != nil)
        return (authentication, routes)
    }
}
