import RoundUp

/// A UUID made from a readable name, the same every time: tests say `namedUid("feed-1")`
/// where the bank sends a UUID, as it sends for every uid, and the name keeps the test
/// readable.
public func namedUid(_ name: String) -> String { TransferUID.uuidV5(namespace: namedUidSpace, name: name) }

/// The namespace of `namedUid`'s UUIDs, apart from every other UUID the job makes.
private let namedUidSpace: [UInt8] = Array("roundup test uids".utf8.prefix(16))
