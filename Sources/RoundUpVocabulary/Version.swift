/// roundup's version, sent in `User-Agent`, written in reports and in the ledger's run rows.
public let roundupVersion = "0.1.0"
