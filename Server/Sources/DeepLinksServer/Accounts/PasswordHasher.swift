import Crypto
import CryptoExtras
import DeepLinksSupport
import Foundation
import NIOPosix

/// Hashes passwords with scrypt (memory-hard; no 72-byte truncation as with bcrypt), off the event loop.
///
/// Stored as a PHC string, `$scrypt$ln=15,r=8,p=1$SALT$HASH`, so the cost can rise later and older hashes
/// still verify. The input is the NFKC form of the password (``PasswordPolicy/normalize(_:)``).
public struct PasswordHasher: Sendable {
    /// log2 of scrypt's N. 15 (32 MiB of memory per hash) by default; tests lower it.
    public var logN: Int
    public var r = 8
    public var p = 1

    public init(logN: Int = 15) {
        self.logN = logN
    }

    public func hash(_ password: String) async throws -> String {
        let salt = SecureBytes.random(count: 16)
        let derived = try await derive(password, salt: salt, logN: logN, r: r, p: p)
        return "$scrypt$ln=\(logN),r=\(r),p=\(p)$\(Base64URL.encode(salt))$\(Base64URL.encode(derived))"
    }

    /// Whether `password` matches `stored`; false for a malformed stored value.
    public func verify(_ password: String, against stored: String) async -> Bool {
        let fields = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[1] == "scrypt" else { return false }
        var parameters: [Substring: Int] = [:]
        for item in fields[2].split(separator: ",") {
            let pair = item.split(separator: "=")
            guard pair.count == 2, let value = Int(pair[1]) else { return false }
            parameters[pair[0]] = value
        }
        guard let logN = parameters["ln"], (1...22).contains(logN), let r = parameters["r"], let p = parameters["p"],
            let salt = Base64URL.decode(String(fields[3])), let expected = Base64URL.decode(String(fields[4]))
        else { return false }
        guard let derived = try? await derive(password, salt: salt, logN: logN, r: r, p: p) else { return false }
        return SecureBytes.equal(derived, expected)
    }

    private func derive(_ password: String, salt: [UInt8], logN: Int, r: Int, p: Int) async throws -> [UInt8] {
        let input = Array(PasswordPolicy.normalize(password).utf8)
        return try await NIOThreadPool.singleton.runIfActive {
            let key = try KDF.Scrypt.deriveKey(
                from: input,
                salt: salt,
                outputByteCount: 32,
                rounds: 1 << logN,
                blockSize: r,
                parallelism: p,
                maxMemory: 128 * r * (1 << logN) + 1024 * 1024
            )
            return key.withUnsafeBytes { Array($0) }
        }
    }
}
