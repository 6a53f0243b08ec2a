import RoundUp

// Every uid the bank sends is a UUID (its description gives each `format: uuid`); one that
// is not is bad data, refused where it is read, with the field that held it. Only a feed
// item's own uid is not refused: a payment without one is left out (`no-identity`), not a
// reason to refuse the week's whole feed.

extension KeyedDecodingContainer {
    /// The uid at `key`, as `Uid.uuid` reads it; fails when it is missing or not a UUID.
    func decodeUid(forKey key: Key) throws -> String {
        try uid(try decode(String.self, forKey: key), at: key)
    }

    /// The uid at `key`, or nil when it is absent or null; fails when it is not a UUID.
    func decodeUidIfPresent(forKey key: Key) throws -> String? {
        try decodeIfPresent(String.self, forKey: key).map { text throws in try uid(text, at: key) }
    }

    private func uid(_ text: String, at key: Key) throws -> String {
        guard let uid = Uid.uuid(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath + [key], debugDescription: "\(Uid.shown(text)) is not a UUID"))
        }
        return uid
    }
}
