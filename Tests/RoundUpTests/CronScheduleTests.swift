import Foundation
import PropertyBased
import Testing

@testable import RoundUp

/// The next time a crontab line fires, as `roundup status` shows it.
@Suite struct CronScheduleTests {
    static func instant(_ text: String) -> Instant { Instant(iso8601: text)! }
    static let utc = TimeZone(identifier: "UTC")!
    static let london = TimeZone(identifier: "Europe/London")!

    @Test(arguments: [
        // The line `check --crontab` prints: Thursday 26 Nov 2026 → Monday 30 Nov.
        ("0 6 * * 1", "2026-11-26T04:00:00Z", "UTC", "2026-11-30T06:00:00Z"),
        // Monday before 06:00 is that Monday; at 06:00 itself, the next.
        ("0 6 * * 1", "2026-11-30T05:59:00Z", "UTC", "2026-11-30T06:00:00Z"),
        ("0 6 * * 1", "2026-11-30T06:00:00Z", "UTC", "2026-12-07T06:00:00Z"),
        // In London's summer time 06:00 is 05:00 UTC.
        ("0 6 * * 1", "2026-03-27T12:00:00Z", "Europe/London", "2026-03-30T05:00:00Z"),
        ("0 6 * * 7", "2026-11-26T04:00:00Z", "UTC", "2026-11-29T06:00:00Z"),
        ("0 6 * * sun", "2026-11-26T04:00:00Z", "UTC", "2026-11-29T06:00:00Z"),
        ("@weekly", "2026-11-26T04:00:00Z", "UTC", "2026-11-29T00:00:00Z"),
        ("@daily", "2026-11-26T04:00:00Z", "UTC", "2026-11-27T00:00:00Z"),
        ("@hourly", "2026-11-26T04:00:00Z", "UTC", "2026-11-26T05:00:00Z"),
        ("@monthly", "2026-11-26T04:00:00Z", "UTC", "2026-12-01T00:00:00Z"),
        ("@yearly", "2026-11-26T04:00:00Z", "UTC", "2027-01-01T00:00:00Z"),
        // Both day fields restricted: either one. Friday 27 Nov is not the 13th.
        ("0 0 13 * 5", "2026-11-26T04:00:00Z", "UTC", "2026-11-27T00:00:00Z"),
        // One of them `*`: both.
        ("0 0 */10 * 1", "2026-11-26T04:00:00Z", "UTC", "2026-12-21T00:00:00Z"),
        ("*/15 9-17 * jan-mar,nov mon-fri", "2026-11-26T17:50:00Z", "UTC", "2026-11-27T09:00:00Z"),
        ("0 0 29 2 *", "2026-11-26T04:00:00Z", "UTC", "2028-02-29T00:00:00Z"),
        ("30 5 * * 1", "2026-11-26T04:00:00Z", "Asia/Kolkata", "2026-11-30T00:00:00Z"),
        // 01:30 on 28 March 2027 does not happen in London: cron starts the job when the clock
        // goes from 01:00 GMT to 02:00 BST.
        ("30 1 28 3 *", "2027-03-01T00:00:00Z", "Europe/London", "2027-03-28T01:00:00Z"),
        // 01:30 on 31 October 2027 happens twice: the first.
        ("30 1 31 10 *", "2027-10-01T00:00:00Z", "Europe/London", "2027-10-31T00:30:00Z"),
        // Once past the first, a line of a fixed time waits for the next day, as cron(8) says.
        ("30 1 * * *", "2027-10-31T00:45:00Z", "Europe/London", "2027-11-01T01:30:00Z"),
        // A line with `*` in its minute or hour runs in the repeated hour as well: after 01:59 BST
        // comes 01:00 GMT, and the line runs then.
        ("* * * * *", "2028-10-29T00:59:30Z", "Europe/London", "2028-10-29T01:00:00Z"),
        ("*/15 * * * *", "2028-10-29T00:50:00Z", "Europe/London", "2028-10-29T01:00:00Z"),
        ("0 * * * *", "2028-10-29T00:30:00Z", "Europe/London", "2028-10-29T01:00:00Z"),
        // Within the first 01:xx (BST), the next minute is still the next minute.
        ("* * * * *", "2028-10-29T00:30:30Z", "Europe/London", "2028-10-29T00:31:00Z"),
        // Lord Howe goes back half an hour: 01:30 to 02:00 happens twice.
        ("*/10 * * * *", "2026-04-04T14:55:00Z", "Australia/Lord_Howe", "2026-04-04T15:00:00Z"),
    ])
    func theNextRunIsTheFirstTimeTheFieldsAllow(line: String, now: String, zone: String, next: String) throws {
        let schedule = try #require(CronSchedule(line))
        #expect(schedule.next(after: Self.instant(now), in: TimeZone(identifier: zone)!) == Self.instant(next))
    }

    @Test(arguments: [
        "@reboot", "60 6 * * 1", "0 24 * * 1", "0 6 0 * 1", "0 6 * 13 1", "0 6 * * 8", "0 6 * *", "0 6 * * 1 *",
        "5/10 * * * *", "*/0 * * * *", "10-5 * * * *", "+5 * * * *", "0 6 * * mon-", ", * * * *", "0 6 ? * 1",
        "0 6 L * *", "H 6 * * 1", "",
    ])
    func whatDebiansCronWouldNotReadIsNotRead(line: String) {
        #expect(CronSchedule(line) == nil)
    }

    @Test func aDayThatNeverComesHasNoNextRun() throws {
        let schedule = try #require(CronSchedule("0 0 30 2 *"))
        #expect(schedule.next(after: Self.instant("2026-11-26T04:00:00Z"), in: Self.utc) == nil)
    }

    /// Whether `schedule` fires at the minute `instant` starts, read off the calendar.
    static func fires(_ schedule: CronSchedule, at instant: Instant, in zone: TimeZone) -> Bool {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let date = Date(timeIntervalSince1970: Double(instant.millisecondsSince1970) / 1000)
        let parts = calendar.dateComponents([.minute, .hour, .day, .month, .weekday, .second], from: date)
        let (day, week) = (schedule.days.contains(parts.day!), schedule.weekdays.contains(parts.weekday! - 1))
        // The wall-clock time came before, the clock having gone back since: cron runs a line
        // of a fixed time only the first time.
        let repeated = [3600.0, 1800.0].contains { back in
            calendar.dateComponents([.day, .hour, .minute], from: date.addingTimeInterval(-back))
                == calendar.dateComponents([.day, .hour, .minute], from: date)
        }
        if repeated, !schedule.wildcard { return false }
        return parts.second == 0 && schedule.minutes.contains(parts.minute!) && schedule.hours.contains(parts.hour!)
            && schedule.months.contains(parts.month!) && (schedule.eitherDay ? day || week : day && week)
    }

    /// The next run is a time the line fires at, after now, with none between: minute by
    /// minute, in zones with and without summer time, across their changes.
    @Test func noMinuteBetweenNowAndTheNextRunFires() async {
        let choices = [
            ["*", "0", "*/15", "5-10", "0,30", "59"], ["*", "6", "*/6", "9-17", "0,12", "1-3"],
            ["*", "1", "13", "1-7", "*/10", "28-31"], ["*", "1-6", "jan,jul", "*/3", "nov", "mar,oct"],
            ["*", "1", "mon-fri", "0", "sat,sun", "7"],
        ]
        let fields = Gen.int(in: 0...5).array(of: 5...5).map { picks in
            zip(choices, picks).map { $0[$1] }.joined(separator: " ")
        }
        let zoneNames = ["UTC", "Europe/London", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]
        let zones = Gen.int(in: 0...4).map { zoneNames[$0] }
        let nows = Gen.int64(in: 1_577_836_800...1_893_456_000).map { Instant(millisecondsSince1970: $0 * 1000 + 123) }
        await propertyCheck(count: 400, input: fields, zones, nows) { line, zoneName, now in
            let zone = TimeZone(identifier: zoneName)!
            guard let schedule = CronSchedule(line) else {
                Issue.record("\(line) is a line cron reads")
                return
            }
            guard let next = schedule.next(after: now, in: zone) else {
                Issue.record("\(line) fires within 28 years")
                return
            }
            #expect(next > now)
            let gap = next.millisecondsSince1970 - now.millisecondsSince1970
            // A firing time the clock skipped lands on a time the fields do not name: only
            // ask that it be a whole minute.
            #expect(next.millisecondsSince1970 % 60_000 == 0, "\(line) in \(zoneName) after \(now.iso8601)")
            guard gap <= 4 * 86_400_000 else { return }
            var minute = (now.millisecondsSince1970 / 60_000 + 1) * 60_000
            while minute < next.millisecondsSince1970 {
                let earlier = Instant(millisecondsSince1970: minute)
                #expect(
                    !Self.fires(schedule, at: earlier, in: zone),
                    "\(line) in \(zoneName) fires at \(earlier.iso8601), before \(next.iso8601)")
                minute += 60_000
            }
        }
    }
}
