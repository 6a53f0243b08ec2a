/// roundup's version, sent in `User-Agent` and written in reports.
public let roundupVersion = "0.1.0"
