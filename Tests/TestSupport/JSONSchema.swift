import Foundation

/// Checks a JSON value against a JSON Schema (2020-12), for the keywords roundup's
/// schemas use: `$ref` to `#/$defs/…`, `type`, `const`, `enum`, `properties`, `required`,
/// `additionalProperties`, `propertyNames`, `items`, `minimum`, `maximum` and `pattern`.
/// Any other keyword fails the check, so a schema cannot say more than is checked.
public struct JSONSchema {
    let root: [String: Any]

    static let annotations: Set<String> = ["$schema", "$id", "title", "description", "$defs"]
    static let checked: Set<String> = [
        "$ref", "type", "const", "enum", "properties", "required", "additionalProperties", "propertyNames", "items",
        "minimum", "maximum", "pattern",
    ]

    public init(file: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SchemaFileError(message: "\(file) is not a JSON object")
        }
        self.root = root
    }

    struct SchemaFileError: Error { let message: String }

    /// Every way `value` breaks the schema, each with its path (`accounts[0].status`).
    public func problems(in value: Any) -> [String] {
        var problems: [String] = []
        check(value, against: root, at: "$", into: &problems)
        return problems
    }

    /// Parses `text` as JSON and checks it.
    public func problems(inJSON text: String) -> [String] {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return ["not JSON: \(text.prefix(200))"]
        }
        return problems(in: value)
    }

    private func check(_ value: Any, against schema: [String: Any], at path: String, into problems: inout [String]) {
        for key in schema.keys where !Self.annotations.contains(key) && !Self.checked.contains(key) {
            problems.append("\(path): the schema uses '\(key)', which this checker does not know")
        }
        if let reference = schema["$ref"] as? String {
            let name = reference.replacingOccurrences(of: "#/$defs/", with: "")
            guard let definitions = root["$defs"] as? [String: Any], let target = definitions[name] as? [String: Any]
            else {
                problems.append("\(path): unknown $ref \(reference)")
                return
            }
            check(value, against: target, at: path, into: &problems)
        }
        if let expected = schema["const"], !Self.equal(value, expected) {
            problems.append("\(path): \(value) is not \(expected)")
        }
        if let options = schema["enum"] as? [Any], !options.contains(where: { Self.equal(value, $0) }) {
            problems.append("\(path): \(value) is not one of \(options)")
        }
        // `type` is one type's name, or a list of them.
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] }
        if let types, !types.contains(Self.type(of: value)),
            !(types.contains("number") && Self.type(of: value) == "integer")
        {
            problems.append("\(path): is \(Self.type(of: value)), not \(types.joined(separator: " or "))")
            return
        }
        if let number = value as? NSNumber, Self.type(of: value) != "boolean" {
            if let minimum = schema["minimum"] as? NSNumber, number.doubleValue < minimum.doubleValue {
                problems.append("\(path): \(number) is below \(minimum)")
            }
            if let maximum = schema["maximum"] as? NSNumber, number.doubleValue > maximum.doubleValue {
                problems.append("\(path): \(number) is above \(maximum)")
            }
        }
        if let pattern = schema["pattern"] as? String, let text = value as? String,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            problems.append("\(path): '\(text)' does not match \(pattern)")
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(path): '\(name)' is missing")
            }
            if let names = schema["propertyNames"] as? [String: Any] {
                for key in object.keys { check(key, against: names, at: "\(path) key", into: &problems) }
            }
            for (key, member) in object {
                if let property = properties[key] as? [String: Any] {
                    check(member, against: property, at: "\(path).\(key)", into: &problems)
                } else if let additional = schema["additionalProperties"] as? [String: Any] {
                    check(member, against: additional, at: "\(path).\(key)", into: &problems)
                } else if Self.isFalse(schema["additionalProperties"]) {
                    problems.append("\(path): '\(key)' is not in the schema")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() {
                check(item, against: items, at: "\(path)[\(index)]", into: &problems)
            }
        }
    }

    static func isFalse(_ value: Any?) -> Bool {
        guard let value, type(of: value) == "boolean" else { return false }
        return (value as? NSNumber)?.boolValue == false
    }

    static func type(of value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case is String: return "string"
        case is [Any]: return "array"
        case is [String: Any]: return "object"
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" || Swift.type(of: value) == Bool.self { return "boolean" }
            return number.doubleValue.rounded() == number.doubleValue ? "integer" : "number"
        default: return "unknown"
        }
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        guard type(of: a) == type(of: b) else { return false }
        switch (a, b) {
        case (let x as String, let y as String): return x == y
        case (let x as NSNumber, let y as NSNumber): return x == y
        default: return false
        }
    }
}
