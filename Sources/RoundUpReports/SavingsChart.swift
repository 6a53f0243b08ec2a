import Foundation
package import RoundUp
package import RoundUpVocabulary

/// The saver's picture of their savings, `savings.svg`, and a self-contained page around
/// it, `savings.html`: for each currency the savings per week, the running total and the
/// savings per month, and each goal's progress to its target. Currencies are never added
/// together; bank text is escaped; nothing is loaded from the network.
package struct SavingsChart {
    package let savings: Savings
    package let goals: [GoalProgress]

    /// The most weeks one chart shows, newest last; older weeks still count in the months.
    package static let weeksShown = 52

    private static let width = 760.0
    private static let left = 104.0
    private static let plotWidth = width - left - 24

    /// The chart as SVG: one `<rect class="week">` per week shown, one `<rect class="month">`
    /// per month, one `<polyline class="running-total">` per currency, and a
    /// `<rect class="goal">` per goal with a target, each bar's height (or width) in
    /// proportion to its amount.
    package var svg: String {
        var body = ""
        var y = 16.0
        if savings.series.isEmpty {
            body += text(
                "No money has moved yet: the chart fills in as weeks are transferred.", x: 16, y: y + 24, class: "note")
            y += 48
        }
        for series in savings.series {
            y = section(series, at: y, into: &body)
        }
        if !goals.isEmpty { y = goalSection(at: y, into: &body) }
        let height = y + 8
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.width.svg)" height="\(height.svg)" \
            viewBox="0 0 \(Self.width.svg) \(height.svg)" role="img" aria-label="Savings moved by roundup">
            <style>
            text { font-family: system-ui, sans-serif; font-size: 12px; fill: #333 }
            .title { font-size: 16px; font-weight: bold }
            .panel { font-size: 13px; font-weight: bold }
            .note, .axis { fill: #666 }
            .week { fill: #3a7bd5 }
            .month { fill: #2e9e6a }
            .running-total { fill: none; stroke: #d5573a; stroke-width: 2 }
            .running-total-point { fill: #d5573a }
            .goal-track { fill: #e6e6e6 }
            .goal { fill: #8a5cd5 }
            line { stroke: #999; stroke-width: 1 }
            </style>
            <rect width="100%" height="100%" fill="#fff"/>
            \(body)</svg>

            """
    }

    /// The page: a heading, the chart inline, and the week, month and goal figures as
    /// tables, for screen readers and for copying.
    package var html: String {
        var tables = ""
        for series in savings.series {
            // Newest first; the months end with the total.
            for (per, heading, periods, total) in [
                ("week", "Week ending", series.weeks, false), ("month", "Month", series.months, true),
            ] {
                tables += "<h2>\(Self.escape(series.currency)) per \(per)</h2>\n<table>\n"
                tables += "<tr><th>\(heading)</th><th>Saved</th></tr>\n"
                for period in periods.reversed() {
                    tables += "<tr><td>\(Self.escape(period.label))</td><td class=\"n\">"
                    tables +=
                        "\(Self.escape(series.amount(period.minorUnits))) \(Self.escape(series.currency))</td></tr>\n"
                }
                if total {
                    tables += "<tr><th>Total</th><th class=\"n\">\(Self.escape(series.amount(series.total))) "
                    tables += "\(Self.escape(series.currency))</th></tr>\n"
                }
                tables += "</table>\n"
            }
        }
        if !goals.isEmpty {
            tables += "<h2>Goals</h2>\n<table>\n<tr><th>Goal</th><th>Saved</th><th>Target</th></tr>\n"
            for goal in goals {
                tables += "<tr><td>\(Self.escape(goal.name))</td>"
                tables +=
                    "<td class=\"n\">\(Self.escape(Savings.amount(goal.saved, goal.currency) + " " + goal.currency))</td>"
                tables += "<td class=\"n\">"
                tables +=
                    goal.target.map { Self.escape(Savings.amount($0, goal.currency) + " " + goal.currency) } ?? "—"
                tables += "</td></tr>\n"
            }
            tables += "</table>\n"
        }
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Savings moved by roundup</title>
            <style>
            body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 800px; color: #222 }
            table { border-collapse: collapse; margin-bottom: 1.5em }
            th, td { border-bottom: 1px solid #ddd; padding: 0.25em 1em; text-align: left }
            .n { text-align: right; font-variant-numeric: tabular-nums }
            svg { max-width: 100%; height: auto }
            </style>
            </head>
            <body>
            <h1>Savings moved by roundup</h1>
            \(svg)\(tables)</body>
            </html>

            """
    }

    /// One currency: its title, the weeks' bars, the running total and the months' bars.
    private func section(_ series: Savings.Series, at top: Double, into body: inout String) -> Double {
        var y = top
        let code = series.currency
        let weeks = Array(series.weeks.suffix(Self.weeksShown))
        body += text(
            "\(code): \(series.amount(series.total)) saved in \(series.weeks.count) week(s)", x: 16, y: y + 16,
            class: "title")
        y += 32
        let shown = weeks.count < series.weeks.count ? " (the newest \(weeks.count))" : ""
        body += text("Per week\(shown)", x: 16, y: y + 12, class: "panel")
        y += 20
        y = bars(weeks, class: "week", currency: series, at: y, height: 140, into: &body)
        body += text("Running total", x: 16, y: y + 12, class: "panel")
        y += 20
        y = runningTotal(series, weeks: weeks.count, at: y, height: 100, into: &body)
        body += text("Per month", x: 16, y: y + 12, class: "panel")
        y += 20
        y = bars(series.months, class: "month", currency: series, at: y, height: 120, into: &body)
        return y + 8
    }

    /// Bars for `periods` from a shared baseline, the tallest `height` high, labelled with
    /// the largest amount, and the first and last period.
    private func bars(
        _ periods: [Savings.Period], class name: String, currency series: Savings.Series, at top: Double,
        height: Double, into body: inout String
    ) -> Double {
        let largest = periods.map(\.minorUnits).max() ?? 0
        let slot = Self.plotWidth / Double(max(periods.count, 1))
        let barWidth = max(1, min(slot * 0.8, 48))
        let baseline = top + height
        body += "<line x1=\"\(Self.left.svg)\" y1=\"\(baseline.svg)\" x2=\"\((Self.left + Self.plotWidth).svg)\" "
        body += "y2=\"\(baseline.svg)\"/>\n"
        body += text(
            "\(series.amount(largest)) \(series.currency)", x: Self.left - 4, y: top + 10, class: "axis", anchor: "end")
        for (index, period) in periods.enumerated() {
            let barHeight = largest > 0 ? Double(period.minorUnits) / Double(largest) * height : 0
            let x = Self.left + Double(index) * slot + (slot - barWidth) / 2
            body += "<rect class=\"\(name)\" x=\"\(x.svg)\" y=\"\((baseline - barHeight).svg)\" "
            body += "width=\"\(barWidth.svg)\" height=\"\(barHeight.svg)\" data-minor-units=\"\(period.minorUnits)\">"
            body += "<title>\(Self.escape(period.label)): \(Self.escape(series.amount(period.minorUnits))) "
            body += "\(Self.escape(series.currency))</title></rect>\n"
        }
        if let widest = periods.map(\.label.count).max(), Double(widest) * 7.5 <= slot {
            // Room enough to name each bar under it.
            for (index, period) in periods.enumerated() {
                let x = Self.left + (Double(index) + 0.5) * slot
                body += text(period.label, x: x, y: baseline + 16, class: "axis", anchor: "middle")
            }
            return baseline + 28
        }
        if let first = periods.first {
            body += text(first.label, x: Self.left, y: baseline + 16, class: "axis")
        }
        if let last = periods.last, periods.count > 1 {
            body += text(last.label, x: Self.left + Self.plotWidth, y: baseline + 16, class: "axis", anchor: "end")
        }
        return baseline + 28
    }

    /// The total after each of the newest `weeks` weeks, as a line from the baseline up.
    private func runningTotal(
        _ series: Savings.Series, weeks: Int, at top: Double, height: Double, into body: inout String
    ) -> Double {
        let points = Array(series.runningTotal.suffix(weeks))
        let largest = points.map(\.minorUnits).max() ?? 0
        let slot = Self.plotWidth / Double(max(points.count, 1))
        let baseline = top + height
        body += "<line x1=\"\(Self.left.svg)\" y1=\"\(baseline.svg)\" x2=\"\((Self.left + Self.plotWidth).svg)\" "
        body += "y2=\"\(baseline.svg)\"/>\n"
        body += text(
            "\(series.amount(largest)) \(series.currency)", x: Self.left - 4, y: top + 10, class: "axis", anchor: "end")
        let coordinates = points.enumerated().map { index, point in
            let x = Self.left + (Double(index) + 0.5) * slot
            let y = baseline - (largest > 0 ? Double(point.minorUnits) / Double(largest) * height : 0)
            return "\(x.svg),\(y.svg)"
        }
        for point in coordinates {
            let xy = point.split(separator: ",")
            body += "<circle class=\"running-total-point\" cx=\"\(xy[0])\" cy=\"\(xy[1])\" r=\"3\"/>\n"
        }
        body += "<polyline class=\"running-total\" points=\"\(coordinates.joined(separator: " "))\">"
        body += "<title>\(Self.escape(series.amount(series.total))) \(Self.escape(series.currency)) in all</title>"
        body += "</polyline>\n"
        return baseline + 16
    }

    /// Each goal's progress: a track for its target and a bar for what it holds.
    private func goalSection(at top: Double, into body: inout String) -> Double {
        var y = top
        body += text("Goals", x: 16, y: y + 16, class: "title")
        y += 28
        for goal in goals {
            let saved = "\(Savings.amount(goal.saved, goal.currency)) \(goal.currency)"
            // A long name is cut, so that the figures after it stay on the picture.
            let name = goal.name.count > 48 ? goal.name.prefix(47) + "…" : goal.name
            let asOf = goal.asOf.map { ", as of \($0)" } ?? ""
            guard let target = goal.target, target > 0 else {
                body += text("\(name): \(saved) saved; no target set\(asOf)", x: 16, y: y + 12)
                y += 24
                continue
            }
            let share = min(1, max(0, Double(goal.saved) / Double(target)))
            let percent = Savings.percent(goal.saved, of: target) ?? 0
            body += text(
                "\(name): \(saved) of \(Savings.amount(target, goal.currency)) \(goal.currency) (\(percent) %)\(asOf)",
                x: 16, y: y + 12)
            y += 18
            body +=
                "<rect class=\"goal-track\" x=\"16\" y=\"\(y.svg)\" width=\"\((Self.width - 40).svg)\" height=\"12\"/>\n"
            body += "<rect class=\"goal\" x=\"16\" y=\"\(y.svg)\" width=\"\(((Self.width - 40) * share).svg)\" "
            body += "height=\"12\" data-minor-units=\"\(goal.saved)\" data-target-minor-units=\"\(target)\"/>\n"
            y += 24
        }
        return y
    }

    private func text(_ content: String, x: Double, y: Double, class name: String? = nil, anchor: String? = nil)
        -> String
    {
        var element = "<text x=\"\(x.svg)\" y=\"\(y.svg)\""
        if let name { element += " class=\"\(name)\"" }
        if let anchor { element += " text-anchor=\"\(anchor)\"" }
        return element + ">\(Self.escape(content))</text>\n"
    }

    /// Text made printable, then escaped for XML and HTML: no markup and no control
    /// character from the bank reaches the file.
    package static func escape(_ text: String) -> String { XMLText.escape(printable(text)) }

    package init(savings: Savings, goals: [GoalProgress]) {
        self.savings = savings
        self.goals = goals
    }
}

extension Double {
    /// A coordinate to a tenth of a pixel: `12.5`, `140`.
    fileprivate var svg: String {
        let tenths = (self * 10).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0
            ? String(Int(tenths / 10)) : String(format: "%.1f", tenths / 10)
    }
}

extension SavingsChart {
    /// The chart's file names in the report directory.
    package static let names = (svg: "savings.svg", html: "savings.html")

    /// Writes `savings.svg` and `savings.html` into the report directory at `path`, through
    /// the same safe writer as the reports, with any occurrence of `token` removed.
    /// Both are written whole under temporary names before either is renamed into place,
    /// so that a failure leaves the two as they were, together.
    package func write(to path: String, token: AccessToken?) throws {
        let directory = try ReportWriter.openDirectory(path)
        var files: [ReportFile] = []
        do {
            for (name, content) in [(Self.names.svg, svg), (Self.names.html, html)] {
                let file = try ReportFile(in: directory, name: name, token: token)
                files.append(file)
                try file.append(content)
                try file.flush()
            }
            for file in files { try file.commit() }
        } catch {
            for file in files { file.abandon() }
            throw error
        }
    }
}
