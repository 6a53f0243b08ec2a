"""What a roundup export moved into savings goals, as each tool of the field reads it.

    python export_totals.py ledger|hledger|beancount|ofx FILE

Runs the tool on FILE (ledger-cli with --pedantic, hledger's strict checks, Beancount's
loader as bean-check runs it, ofxtools' parser), fails with the tool's words if it
refuses the file, and prints {currency: total} of the money moved into goals, as JSON
with amounts as exact decimal strings. ExportTests compares it with `roundup history`.
"""

import csv
import io
import json
import subprocess
import sys
from collections import defaultdict
from decimal import Decimal


def run(*command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0 or done.stderr.strip():
        sys.exit(f"{' '.join(command)} refused the file: {done.stderr.strip() or done.stdout.strip()}")
    return done.stdout


def positive(rows):
    """Sums (amount, currency) pairs above zero: the goal side of each transfer."""
    totals = defaultdict(Decimal)
    for amount, currency in rows:
        value = Decimal(amount.replace(",", ""))
        if value > 0:
            totals[currency] += value
    return totals


def ledger(path):
    out = run("ledger", "--pedantic", "-f", path, "csv")
    return positive((row[5], row[4]) for row in csv.reader(io.StringIO(out)))


def hledger(path):
    run("hledger", "-f", path, "check", "accounts", "commodities", "ordereddates")
    out = run("hledger", "-f", path, "print", "-O", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    return positive((row["amount"], row["commodity"]) for row in rows)


def beancount(path):
    from beancount import loader
    from beancount.core import data

    entries, errors, _ = loader.load_file(path)
    if errors:
        sys.exit("bean-check refused the file: " + "; ".join(str(e.message) for e in errors))
    return positive(
        (str(posting.units.number), posting.units.currency)
        for entry in entries
        if isinstance(entry, data.Transaction)
        for posting in entry.postings
    )


def ofx(path):
    from ofxtools.Parser import OFXTree
    from xml.dom import minidom

    try:
        minidom.parse(path)  # well-formed XML, as an importer that parses XML needs it
    except Exception as error:
        sys.exit(f"the OFX file is not well-formed XML: {error}")

    tree = OFXTree()
    tree.parse(path)
    document = tree.convert()
    fitids = [t.fitid for s in document.statements for t in s.transactions]
    if len(fitids) != len(set(fitids)):
        sys.exit("the OFX file gives one FITID to two transactions")
    return positive(
        (str(-t.trnamt), statement.curdef) for statement in document.statements for t in statement.transactions
    )


if __name__ == "__main__":
    tool, path = sys.argv[1], sys.argv[2]
    totals = {"ledger": ledger, "hledger": hledger, "beancount": beancount, "ofx": ofx}[tool](path)
    print(json.dumps({currency: str(total) for currency, total in sorted(totals.items())}))
