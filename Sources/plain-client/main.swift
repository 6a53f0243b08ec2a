// The baseline for the benchmark: a round-up client written the usual way. One request
// after another with URLSession, each body decoded whole with JSONDecoder into Codable
// structs, the arithmetic in Decimal, then a transfer per account. No ledger, no retries:
// what most round-up scripts do.
//
// Usage: STARLING_ACCESS_TOKEN=… plain-client BASE_URL FROM_ISO8601 TO_ISO8601

import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Amount: Codable {
    let currency: String
    let minorUnits: Int64
}

struct Account: Decodable {
    let accountUid: String
    let defaultCategory: String
    let currency: String
}

struct Accounts: Decodable { let accounts: [Account] }

struct FeedItem: Decodable {
    let feedItemUid: String
    let categoryUid: String
    let amount: Amount
    let direction: String
    let status: String
    let settlementTime: String?
    let source: String?
    let counterPartyName: String?
    let spendingCategory: String?
}

struct Feed: Decodable { let feedItems: [FeedItem] }

struct Goal: Decodable {
    let savingsGoalUid: String
    let name: String
}

struct Goals: Decodable { let savingsGoalList: [Goal] }

struct TopUp: Encodable { let amount: Amount }

let arguments = CommandLine.arguments
guard arguments.count == 4, let token = ProcessInfo.processInfo.environment["STARLING_ACCESS_TOKEN"] else {
    FileHandle.standardError.write(Data("usage: STARLING_ACCESS_TOKEN=… plain-client BASE_URL FROM TO\n".utf8))
    exit(64)
}
let base = arguments[1]

func request(_ method: String, _ path: String, body: Data? = nil) async throws -> Data {
    var request = URLRequest(url: URL(string: base + path)!)
    request.httpMethod = method
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    if let body {
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    }
    let (data, response) = try await URLSession.shared.data(for: request)
    guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
        throw NSError(domain: "plain-client", code: (response as? HTTPURLResponse)?.statusCode ?? 0)
    }
    return data
}

let decoder = JSONDecoder()
_ = try await request("GET", "/api/v2/identity/token")
let accounts = try decoder.decode(Accounts.self, from: try await request("GET", "/api/v2/accounts")).accounts
var moved = 0
for account in accounts {
    let query = "minTransactionTimestamp=\(arguments[2])&maxTransactionTimestamp=\(arguments[3])"
    let feed = try decoder.decode(
        Feed.self,
        from: try await request(
            "GET", "/api/v2/feed/account/\(account.accountUid)/settled-transactions-between?\(query)"))
    var total = Decimal(0)
    for item in feed.feedItems
    where item.direction == "OUT" && item.status == "SETTLED" && item.categoryUid == account.defaultCategory {
        let amount = Decimal(item.amount.minorUnits) / 100
        var value = amount
        var ceiling = Decimal()
        NSDecimalRound(&ceiling, &value, 0, .up)
        total += ceiling - amount
    }
    let goals = try decoder.decode(
        Goals.self, from: try await request("GET", "/api/v2/account/\(account.accountUid)/savings-goals"))
    guard let goal = goals.savingsGoalList.first(where: { $0.name == "Round-ups" }) else { continue }
    let minorUnits = NSDecimalNumber(decimal: total * 100).int64Value
    guard minorUnits > 0 else { continue }
    let body = try JSONEncoder().encode(TopUp(amount: Amount(currency: account.currency, minorUnits: minorUnits)))
    _ = try await request(
        "PUT",
        "/api/v2/account/\(account.accountUid)/savings-goals/\(goal.savingsGoalUid)/add-money/\(UUID().uuidString.lowercased())",
        body: body)
    moved += 1
}
print("plain-client: \(accounts.count) account(s), \(moved) transfer(s)")
