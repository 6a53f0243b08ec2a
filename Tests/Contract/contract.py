"""Holds recorded exchanges with the emulator against the bank's published OpenAPI description.

Each exchange is one JSON object a line, as the emulator's TrafficLog writes it. The
request is checked whatever happened to it: its path names an operation of the
description, its path and query parameters match their schemas, it carries the headers
the operation needs, and its body (if any) matches the operation's request body. The
answer is checked unless a fault injected on purpose altered it: its status is one the
operation lists (`4xx` and `5xx` stand for a class), and its body matches that status's
schema.

The description is OpenAPI 3.0: schemas are JSON Schema draft 4 with `nullable`, which
is turned into a `null` type before validating. Objects are closed: a field the
description does not name is refused, in a request and in an answer alike, so neither
the job nor the emulator can invent one.

Run as a program: `contract.py SPEC TRAFFIC_DIR` prints what it checked and exits 1 on
any mismatch.
"""

import copy
import glob
import json
import re
import sys
from collections import Counter
from urllib.parse import unquote

from jsonschema import Draft4Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

BASE = "urn:starling-openapi"

# The operations the job uses: a run of the suite must have exercised every one.
JOB_OPERATIONS = {
    "getTokenIdentity",
    "getAccounts",
    "getAccountBalance",
    "getConfirmationOfFunds",
    "queryFeedItemsWithTransactionTimesBetween",
    "queryFeedItemsByCategoryWithTransactionTimesBetween",
    "fetchRoundUpGoal",
    "getSavingsGoals",
    "createSavingsGoal",
    "addMoney",
    "listStandingOrders",
    "listNextPaymentDates",
    "listMandatesForAccount",
    "getRecurringTransfer",
    "getSpaces",
}

_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _format_checker():
    checker = FormatChecker(formats=())

    @checker.checks("date-time")
    def date_time(value):
        return not isinstance(value, str) or bool(_DATE_TIME.match(value))

    @checker.checks("date")
    def date(value):
        return not isinstance(value, str) or bool(_DATE.match(value))

    @checker.checks("uuid")
    def uuid(value):
        return not isinstance(value, str) or bool(_UUID.match(value))

    @checker.checks("int32")
    def int32(value):
        return not isinstance(value, int) or -(2**31) <= value < 2**31

    @checker.checks("int64")
    def int64(value):
        return not isinstance(value, int) or -(2**63) <= value < 2**63

    return checker


def _as_json_schema(node):
    """OpenAPI 3.0 schema objects as draft 4 JSON Schema: `nullable` becomes a `null`
    type (and a `null` in an enum), and every object that names its properties is closed."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _as_json_schema(value) for key, value in node.items()}
    if out.pop("nullable", False):
        if "type" in out:
            types = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = types + ["null"]
        if "enum" in out:
            out["enum"] = out["enum"] + [None]
    for key in ("writeOnly", "readOnly", "example", "xml", "externalDocs", "deprecated"):
        if key in out and not isinstance(out[key], dict):
            out.pop(key)
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


_INTEGER = re.compile(r"^-?(0|[1-9][0-9]*)$")


def _typed(text, schema):
    """A path, query or header value (always text on the wire) as the value its schema's
    type reads it as: `12` for an integer, `true` for a boolean. Text that is not
    written as that type stays text, so the schema refuses it."""
    kind = schema.get("type")
    if kind == "integer" and _INTEGER.match(text):
        return int(text)
    if kind == "boolean" and text in ("true", "false"):
        return text == "true"
    return text


def _pointer(*parts):
    return "#" + "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in parts)


class Spec:
    """The description, ready to match paths and validate values."""

    def __init__(self, document):
        self.document = document
        # Only schema objects are rewritten; the rest of the document keeps its shape so
        # that pointers into it stay valid.
        converted = copy.deepcopy(document)
        converted["components"]["schemas"] = _as_json_schema(document["components"]["schemas"])
        for path_item in converted["paths"].values():
            for operation in path_item.values():
                if not isinstance(operation, dict):
                    continue
                for parameter in operation.get("parameters", []):
                    if "schema" in parameter:
                        parameter["schema"] = _as_json_schema(parameter["schema"])
                for holder in [operation.get("requestBody", {})] + list(operation.get("responses", {}).values()):
                    for media in holder.get("content", {}).values():
                        if "schema" in media:
                            media["schema"] = _as_json_schema(media["schema"])
        self.converted = converted
        resource = Resource(contents=converted, specification=DRAFT4)
        self.registry = Registry().with_resource(BASE, resource)
        self.formats = _format_checker()
        self._validators = {}
        self.routes = []
        for template in document["paths"]:
            segments = template.strip("/").split("/")
            pattern = "^/" + "/".join(
                "([^/]+)" if segment.startswith("{") else re.escape(segment) for segment in segments
            ) + "$"
            names = [segment[1:-1] for segment in segments if segment.startswith("{")]
            literal = sum(1 for segment in segments if not segment.startswith("{"))
            self.routes.append((re.compile(pattern), template, names, literal))
        # The most literal template wins: `/savings-goals/{uid}` never swallows a fixed word.
        self.routes.sort(key=lambda route: -route[3])

    def route(self, path):
        for pattern, template, names, _ in self.routes:
            match = pattern.match(path)
            if match:
                return template, dict(zip(names, (unquote(value) for value in match.groups())))
        return None, {}

    def errors(self, pointer, value):
        validator = self._validators.get(pointer)
        if validator is None:
            validator = Draft4Validator(
                {"$ref": BASE + pointer}, registry=self.registry, format_checker=self.formats
            )
            self._validators[pointer] = validator
        return [
            "/".join(str(part) for part in error.absolute_path) + ": " + error.message
            for error in validator.iter_errors(value)
        ]


def _media_json(content):
    return next((media for name, media in content.items() if name.split(";")[0].strip() == "application/json"), None)


def check_request(spec, exchange):
    """What is wrong with the request, against the operation its method and path name."""
    problems = []
    template, path_values = spec.route(exchange["path"])
    if template is None:
        return None, ["no path of the description matches " + exchange["path"]]
    method = exchange["method"].lower()
    operation = spec.document["paths"][template].get(method)
    if operation is None:
        return None, [f"{exchange['method']} is not an operation of {template}"]
    name = operation.get("operationId", method + " " + template)
    parameters = operation.get("parameters", []) + spec.document["paths"][template].get("parameters", [])
    query = {}
    for key, value in exchange.get("query", []):
        if key in query:
            problems.append(f"query parameter {key} is sent twice")
        query[key] = value
    headers = {key.lower(): value for key, value in exchange.get("headers", {}).items()}
    index = {id(parameter): position for position, parameter in enumerate(operation.get("parameters", []))}
    for parameter in parameters:
        where, key = parameter["in"], parameter["name"]
        source = {"path": path_values, "query": query, "header": headers}.get(where)
        if source is None:
            continue
        lookup = key.lower() if where == "header" else key
        if lookup not in source:
            if parameter.get("required"):
                problems.append(f"required {where} parameter {key} is missing")
            continue
        if "schema" in parameter and id(parameter) in index:
            pointer = _pointer("paths", template, method, "parameters", index[id(parameter)], "schema")
            for error in spec.errors(pointer, _typed(source[lookup], parameter["schema"])):
                problems.append(f"{where} parameter {key}: {error}")
    known = {parameter["name"] for parameter in parameters if parameter["in"] == "query"}
    for key in query:
        if key not in known:
            problems.append(f"query parameter {key} is not in the description")
    if operation.get("security"):
        schemes = [scheme for requirement in operation["security"] for scheme in requirement]
        authorization = headers.get("authorization", "")
        if "Bearer" in schemes and not authorization.startswith("Bearer "):
            problems.append("no Authorization: Bearer header")
    accept = headers.get("accept")
    if accept is not None and "application/json" not in accept and "*/*" not in accept:
        problems.append(f"Accept is {accept!r}, the description answers application/json")
    body = exchange.get("body")
    request_body = operation.get("requestBody")
    if request_body is None:
        if body:
            problems.append("sends a body, the operation takes none")
    elif body is None:
        if request_body.get("required"):
            problems.append("sends no body, the operation requires one")
    else:
        content_type = headers.get("content-type", "")
        media = request_body.get("content", {})
        if content_type.split(";")[0].strip() not in media:
            problems.append(f"Content-Type is {content_type!r}, the operation takes {sorted(media)}")
        elif _media_json(media) is not None:
            try:
                value = json.loads(body)
            except ValueError as error:
                problems.append(f"body is not JSON: {error}")
            else:
                pointer = _pointer("paths", template, method, "requestBody", "content", "application/json", "schema")
                problems += ["body " + error for error in spec.errors(pointer, value)]
    return name, problems


def check_response(spec, exchange):
    """What is wrong with the answer, against the statuses its operation lists."""
    if exchange.get("altered") or exchange.get("status") is None:
        return []
    template, _ = spec.route(exchange["path"])
    method = exchange["method"].lower()
    if template is None or method not in spec.document["paths"][template]:
        # The request already failed; an answer to a request outside the description is
        # the emulator's own, and must be an error.
        return [] if exchange["status"] >= 400 else [f"answers {exchange['status']} to a request outside the description"]
    responses = spec.document["paths"][template][method].get("responses", {})
    status = str(exchange["status"])
    key = next((key for key in (status, status[0] + "XX", status[0] + "xx", "default") if key in responses), None)
    if key is None:
        return [f"status {status} is not one the operation lists ({', '.join(sorted(responses))})"]
    content = responses[key].get("content")
    if not content:
        return []
    media = _media_json(content)
    if media is None:
        return []
    content_type = {name.lower(): value for name, value in exchange.get("responseHeaders", {}).items()}.get(
        "content-type", ""
    )
    problems = []
    if content_type.split(";")[0].strip() != "application/json":
        problems.append(f"answer's Content-Type is {content_type!r}, the description says application/json")
    try:
        value = json.loads(exchange.get("responseBody") or "")
    except ValueError as error:
        return problems + [f"answer is not JSON: {error}"]
    if exchange["status"] in (401, 403) and _oauth_error(value):
        return problems
    pointer = _pointer("paths", template, method, "responses", key, "content", "application/json", "schema")
    return problems + ["answer " + error for error in spec.errors(pointer, value)]


def _oauth_error(value):
    """The bank's answer to a missing, wrong or expired token: OAuth's own error body,
    `{"error": …, "error_description": …}`, which the bank sends outside its description."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("error"), str)
        and set(value) <= {"error", "error_description"}
        and all(isinstance(text, str) for text in value.values())
    )


def check(spec, exchange):
    """Every problem with one exchange; empty when it matches the description."""
    _, request_problems = check_request(spec, exchange)
    return ["request: " + problem for problem in request_problems] + [
        "answer: " + problem for problem in check_response(spec, exchange)
    ]


def main(arguments):
    if len(arguments) != 2:
        print("usage: contract.py SPEC TRAFFIC_DIR", file=sys.stderr)
        return 2
    with open(arguments[0]) as file:
        spec = Spec(json.load(file))
    files = sorted(glob.glob(arguments[1] + "/*.jsonl"))
    seen = Counter()
    answered = Counter()
    failures = []
    for name in files:
        with open(name) as file:
            for number, line in enumerate(file, 1):
                exchange = json.loads(line)
                operation, _ = check_request(spec, exchange)
                seen[operation or "(outside the description)"] += 1
                if not exchange.get("altered") and exchange.get("status") is not None:
                    answered[operation or "(outside the description)"] += 1
                for problem in check(spec, exchange):
                    failures.append(f"{name}:{number}: {exchange['method']} {exchange['path']}: {problem}")
    for operation in sorted(seen):
        print(f"  {operation}: {seen[operation]} requests, {answered[operation]} answers checked")
    missing = sorted(JOB_OPERATIONS - set(seen))
    if missing:
        failures.append("the suite never reached " + ", ".join(missing))
    if failures:
        for failure in failures[:40]:
            print(failure, file=sys.stderr)
        if len(failures) > 40:
            print(f"... and {len(failures) - 40} more", file=sys.stderr)
        print(f"contract: {len(failures)} mismatch(es) with the bank's description", file=sys.stderr)
        return 1
    total = sum(seen.values())
    print(f"contract: {total} exchanges in {len(files)} file(s) match the bank's description")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
