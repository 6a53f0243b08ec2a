package import RoundUpVocabulary

/// How text for a terminal is dressed: plain, or with ANSI colours for statuses and
/// headings. Colour is used only on a terminal, never when `NO_COLOR` is set (to anything
/// but the empty string) or `TERM` is `dumb`, unless asked for with `--color always`.
///
/// Bars (`roundup history`) are drawn with Unicode blocks on a terminal, and with plain
/// ASCII when the output is not a terminal or `NO_COLOR` is set.
public struct TextStyle: Sendable, Equatable {
    public var colour: Bool
    /// Bars in Unicode blocks, not `#`.
    public var blocks: Bool

    public static let plain = TextStyle(colour: false)

    public init(colour: Bool, blocks: Bool = false) {
        self.colour = colour
        self.blocks = blocks
    }

    /// When to colour, as `--color` says.
    public enum Choice: String, Sendable, CaseIterable {
        case auto, always, never
    }

    /// The style for output going to a terminal (or not), under `environment`.
    public static func choose(_ choice: Choice, isTerminal: Bool, environment: [String: String]) -> TextStyle {
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty
        let dumb = environment["TERM"] == "dumb"
        let blocks = isTerminal && !noColour && !dumb
        switch choice {
        case .always: return TextStyle(colour: true, blocks: blocks)
        case .never: return TextStyle(colour: false, blocks: blocks)
        case .auto: return TextStyle(colour: blocks, blocks: blocks)
        }
    }

    func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func bold(_ text: String) -> String { paint(text, "1") }
    package func dim(_ text: String) -> String { paint(text, "2") }

    /// A week's fate: green when money moved or had already, yellow when nothing
    /// moved on purpose, red when it failed or waits for a person.
    package func status(_ status: WeekFate, _ text: String) -> String {
        switch status.kind {
        case .moved: paint(text, "32")
        case .nothingMoved: paint(text, "33")
        case .failedOrWaiting: paint(text, "31")
        }
    }
}
