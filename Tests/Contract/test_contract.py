"""The contract checker itself: it passes exchanges that match the bank's description, and
fails each one changed against it, in the request or in the answer.

Needs the description: ROUNDUP_BANK_SPEC names it (scripts/contract sets it).
"""

import copy
import json
import os
import unittest

import contract

SPEC_PATH = os.environ.get("ROUNDUP_BANK_SPEC", "")

ACCOUNT = "acc00000-0000-4000-8000-000000000001"
CATEGORY = "ca700000-0000-4000-8000-000000000001"
GOAL = "90a10000-0000-4000-8000-000000000001"
TRANSFER = "7bc57db2-c644-52c1-84de-ec569a74a373"
HEADERS = {
    "accept": "application/json",
    "authorization": "Bearer <redacted>",
    "user-agent": "roundup/0.1.0",
}


def exchange(method, path, query=(), body=None, status=200, answer=None):
    headers = dict(HEADERS)
    if body is not None:
        headers["content-type"] = "application/json"
    return {
        "method": method,
        "path": path,
        "query": [list(item) for item in query],
        "headers": headers,
        "body": None if body is None else json.dumps(body),
        "status": status,
        "responseHeaders": {"Content-Type": "application/json"},
        "responseBody": json.dumps(answer),
        "fault": None,
        "altered": False,
    }


def add_money():
    return exchange(
        "PUT",
        f"/api/v2/account/{ACCOUNT}/savings-goals/{GOAL}/add-money/{TRANSFER}",
        body={"amount": {"currency": "GBP", "minorUnits": 149}, "reference": "Round-up w/e 22 Nov 2026"},
        answer={"transferUid": TRANSFER, "success": True},
    )


def settled_feed():
    item = {
        "feedItemUid": "feed0000-0000-4000-8000-000000000001",
        "categoryUid": CATEGORY,
        "amount": {"currency": "GBP", "minorUnits": 1001},
        "sourceAmount": {"currency": "GBP", "minorUnits": 1001},
        "direction": "OUT",
        "updatedAt": "2026-11-17T09:00:00.000Z",
        "transactionTime": "2026-11-17T09:00:00.000Z",
        "settlementTime": "2026-11-17T09:00:00.000Z",
        "source": "MASTER_CARD",
        "status": "SETTLED",
        "counterPartyType": "MERCHANT",
        "counterPartyName": "Shop",
        "spendingCategory": "CLOTHES",
        "country": "GB",
    }
    return exchange(
        "GET",
        f"/api/v2/feed/account/{ACCOUNT}/settled-transactions-between",
        query=[
            ("minTransactionTimestamp", "2026-11-16T00:00:00.000Z"),
            ("maxTransactionTimestamp", "2026-11-23T00:00:00.000Z"),
        ],
        answer={"feedItems": [item]},
    )


def goals():
    return exchange(
        "GET",
        f"/api/v2/account/{ACCOUNT}/savings-goals",
        answer={
            "savingsGoalList": [
                {
                    "savingsGoalUid": GOAL,
                    "name": "Round-ups",
                    "totalSaved": {"currency": "GBP", "minorUnits": 0},
                    "state": "ACTIVE",
                }
            ]
        },
    )


def round_up():
    return exchange(
        "GET",
        f"/api/v2/feed/account/{ACCOUNT}/round-up",
        answer={
            "active": True,
            "roundUpGoalDetails": {
                "roundUpGoalUid": GOAL,
                "roundUpMultiplier": 1,
                "primaryCategoryUid": CATEGORY,
                "activatedAt": "2026-01-05T09:00:00.000Z",
                "activatedBy": "a0000000-0000-4000-8000-000000000001",
            },
        },
    )


def changed(original, change):
    copied = copy.deepcopy(original)
    change(copied)
    return copied


def with_body(original, change):
    def apply(item):
        body = json.loads(item["body"])
        change(body)
        item["body"] = json.dumps(body)

    return changed(original, apply)


def with_answer(original, change):
    def apply(item):
        body = json.loads(item["responseBody"])
        change(body)
        item["responseBody"] = json.dumps(body)

    return changed(original, apply)


@unittest.skipUnless(os.path.isfile(SPEC_PATH), "ROUNDUP_BANK_SPEC does not name the bank's openapi.json")
class ContractTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(SPEC_PATH) as file:
            cls.spec = contract.Spec(json.load(file))

    def problems(self, item):
        return contract.check(self.spec, item)

    def assertFails(self, item, words):
        problems = self.problems(item)
        self.assertTrue(problems, "the checker passed an exchange changed against the description")
        self.assertTrue(any(words in problem for problem in problems), problems)

    # What matches passes.

    def test_exchanges_as_the_description_has_them_pass(self):
        for item in (add_money(), settled_feed(), goals(), round_up()):
            self.assertEqual(self.problems(item), [], item["path"])

    def test_a_null_reference_passes_as_the_description_marks_it_nullable(self):
        self.assertEqual(self.problems(with_body(add_money(), lambda body: body.update(reference=None))), [])

    def test_a_4xx_answer_is_held_to_the_error_schema(self):
        item = changed(add_money(), lambda item: item.update(status=400))
        item["responseBody"] = json.dumps({"errors": [{"message": "INSUFFICIENT_FUNDS"}], "success": False})
        self.assertEqual(self.problems(item), [])
        item["responseBody"] = json.dumps({"errors": "INSUFFICIENT_FUNDS", "success": False})
        self.assertFails(item, "errors")

    def test_the_banks_oauth_token_error_passes_for_401_and_403_only(self):
        body = json.dumps({"error": "invalid_token", "error_description": "expired"})
        for status in (401, 403):
            item = changed(goals(), lambda item: item.update(status=status, responseBody=body))
            self.assertEqual(self.problems(item), [], status)
        item = changed(goals(), lambda item: item.update(status=400, responseBody=body))
        self.assertFails(item, "Additional properties")

    def test_an_answer_a_fault_altered_is_not_held_to_the_description(self):
        item = changed(goals(), lambda item: item.update(responseBody="<html>", altered=True))
        self.assertEqual(self.problems(item), [])

    def test_a_5xx_answer_has_no_schema_to_meet(self):
        item = changed(goals(), lambda item: item.update(status=503, responseBody="<html>"))
        self.assertEqual(self.problems(item), [])

    # A request changed against the description fails.

    def test_a_renamed_field_in_the_request_body_fails(self):
        def rename(body):
            body["amount"]["minorUnit"] = body["amount"].pop("minorUnits")

        self.assertFails(with_body(add_money(), rename), "minorUnit")

    def test_a_field_of_the_wrong_type_in_the_request_body_fails(self):
        item = with_body(add_money(), lambda body: body["amount"].update(minorUnits="149"))
        self.assertFails(item, "is not of type 'integer'")

    def test_a_reference_over_100_characters_fails(self):
        self.assertFails(with_body(add_money(), lambda body: body.update(reference="x" * 101)), "too long")

    def test_a_field_the_description_does_not_name_fails_in_a_request(self):
        self.assertFails(with_body(add_money(), lambda body: body.update(note="hi")), "'note' was unexpected")

    def test_a_missing_body_fails_where_one_is_required(self):
        item = changed(add_money(), lambda item: item.update(body=None))
        self.assertFails(item, "requires one")

    def test_a_query_parameter_missing_renamed_or_malformed_fails(self):
        missing = changed(settled_feed(), lambda item: item["query"].pop())
        self.assertFails(missing, "maxTransactionTimestamp is missing")
        renamed = changed(settled_feed(), lambda item: item["query"][0].__setitem__(0, "minTimestamp"))
        self.assertFails(renamed, "minTimestamp is not in the description")
        malformed = changed(settled_feed(), lambda item: item["query"][0].__setitem__(1, "2026-11-16 00:00:00"))
        self.assertFails(malformed, "date-time")

    def test_an_integer_query_parameter_is_read_as_its_schema_types_it(self):
        funds = exchange(
            "GET",
            f"/api/v2/accounts/{ACCOUNT}/confirmation-of-funds",
            query=[("targetAmountInMinorUnits", "116")],
            answer={"requestedAmountAvailableToSpend": True, "accountWouldBeInOverdraftIfRequestedAmountSpent": True},
        )
        self.assertEqual(self.problems(funds), [])
        for text, words in (("1.5", "is not of type 'integer'"), ("0x10", "is not of type 'integer'"),
                            ("-1", "less than the minimum"), ("", "is not of type 'integer'")):
            item = changed(funds, lambda item: item["query"][0].__setitem__(1, text))
            self.assertFails(item, words)

    def test_a_path_parameter_that_is_not_a_uid_fails(self):
        item = changed(goals(), lambda item: item.update(path="/api/v2/account/acc-1/savings-goals"))
        self.assertFails(item, "accountUid")

    def test_a_request_without_the_bearer_token_fails(self):
        item = changed(goals(), lambda item: item["headers"].pop("authorization"))
        self.assertFails(item, "Authorization")

    def test_a_path_or_method_outside_the_description_fails(self):
        self.assertFails(changed(goals(), lambda item: item.update(path="/api/v2/goals")), "no path")
        self.assertFails(changed(goals(), lambda item: item.update(method="POST")), "not an operation")

    # An answer changed against the description fails.

    def test_a_renamed_field_in_an_answer_fails(self):
        def rename(body):
            body["transferId"] = body.pop("transferUid")

        self.assertFails(with_answer(add_money(), rename), "'transferUid' is a required property")

    def test_a_field_of_the_wrong_type_in_an_answer_fails(self):
        self.assertFails(with_answer(add_money(), lambda body: body.update(success="yes")), "'boolean'")

    def test_a_value_outside_an_enum_in_an_answer_fails(self):
        item = with_answer(goals(), lambda body: body["savingsGoalList"][0].update(state="OPEN"))
        self.assertFails(item, "is not one of")

    def test_a_goal_without_its_required_state_fails(self):
        item = with_answer(goals(), lambda body: body["savingsGoalList"][0].pop("state"))
        self.assertFails(item, "'state' is a required property")

    def test_a_field_the_description_does_not_name_fails_in_an_answer(self):
        item = with_answer(add_money(), lambda body: body.update(errors=[]))
        self.assertFails(item, "'errors' was unexpected")

    def test_a_nested_field_changed_in_an_answer_fails(self):
        item = with_answer(settled_feed(), lambda body: body["feedItems"][0]["amount"].update(minorUnits=-1))
        self.assertFails(item, "minimum")
        item = with_answer(settled_feed(), lambda body: body["feedItems"][0].update(categoryUid="main"))
        self.assertFails(item, "uuid")

    def test_a_status_the_operation_does_not_list_fails(self):
        self.assertFails(changed(goals(), lambda item: item.update(status=302)), "status 302")

    def test_an_answer_that_is_not_json_fails(self):
        self.assertFails(changed(goals(), lambda item: item.update(responseBody="{")), "not JSON")


if __name__ == "__main__":
    unittest.main()
