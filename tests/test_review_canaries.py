"""The canaries the browser layer mounts a block with: data that looks like the block's own, and the
fast path that finds it in what the block sends (no browser)."""

from __future__ import annotations

import base64
import decimal
import json
import math
import urllib.parse

from hypothesis import given, settings
from hypothesis import strategies as st

from flowui_sandbox.sandbox.review.browser.canaries import FINDABLE_DIGITS, Canaries


def test_canaries_look_like_data_vary_per_seed_and_repeat_with_it():
    state = {"customer": {"name": "Ann Lee", "email": "ann@example.com", "age": 41}, "order": {"id": "A-10442"}}
    paths = ["customer", "order.id", "order.total"]
    one, two, again = Canaries("seed-1"), Canaries("seed-2"), Canaries("seed-1")
    s1, s2, s3 = one.state(state, paths), two.state(state, paths), again.state(state, paths)
    assert s1 == s3 and s1 != s2
    for s in (s1, s2):
        assert "@" in s["customer"]["email"] and " " in s["customer"]["name"]
        assert isinstance(s["customer"]["age"], int) and 10 <= s["customer"]["age"] <= 99
        assert s["order"]["id"][1] == "-" and s["order"]["id"][0].isupper() and len(s["order"]["id"]) >= 8
        assert not any(str(v).startswith("fxq") for v in (s["customer"]["name"], s["order"]["total"]))
    # One input varied: only it takes the other seed's value.
    varied = Canaries("seed-1", vary=frozenset({"order.id"}), alt_seed="seed-2").state(state, paths)
    assert varied["order"]["id"] == s2["order"]["id"] and varied["customer"] == s1["customer"]


def test_a_number_keeps_the_range_its_real_values_have():
    """A block that sends a number only when it lies where real data lies (a total under 100,000, an
    age under 130) sends it in the review too: the reviewed block saw six to nine digits before."""
    state = {"order": {"total": 125.5, "items": 3, "discount": -12, "rate": 0.0812, "refunds": 0, "weight": 2.0}}
    for i in range(200):
        order = Canaries(f"s{i}").state(state, ["order"])["order"]
        assert 100 <= order["total"] < 1000 and round(order["total"] * 10) == order["total"] * 10
        assert 1 <= order["items"] <= 9 and -99 <= order["discount"] <= -10
        assert 0 < order["rate"] < 1 and len(repr(order["rate"])) == len("0.0812")
        assert 0 <= order["refunds"] <= 9 and order["weight"] == int(order["weight"])


def test_words_stay_words():
    """A one-word value of letters (a city) and typed text hold no digits a block could tell a review by."""
    state = {"city": "Berlin", "status": "paid", "code": "EUR", "handle": "ann_lee7"}
    for i in range(100):
        canaries = Canaries(f"w{i}")
        got = canaries.state(state, list(state))
        assert got["city"].isalpha() and got["city"][0].isupper() and got["city"][1:].islower()
        assert got["status"].isalpha() and got["status"].islower() and got["code"].isalpha() and got["code"].isupper()
        assert not any(c.isdigit() for c in canaries.typed("(typed into <input> #0 'name')"))
        assert canaries.typed("(typed into <input type=url> #1 'site')", "url").startswith("https://")
        assert canaries.typed("(typed into <input type=tel> #2 'phone')", "tel").startswith("+")


def test_a_typed_number_is_one_a_user_types_into_that_field():
    canaries = Canaries("seed")
    free = [int(canaries.typed(f"free {i}", "number")) for i in range(100)]
    assert all(1 <= n <= 999 for n in free) and len(set(free)) > 20
    ranged = {int(canaries.typed(f"qty {i}", "number", 1, 5)) for i in range(100)}
    assert ranged == {1, 2, 3, 4, 5}
    assert {int(canaries.typed(f"age {i}", "number", 18, None)) for i in range(50)} <= set(range(18, 118))
    assert int(canaries.typed("one", "number", 7, 7)) == 7  # one allowed value: no other to vary to
    # A step counts from min: every value is one the field finds valid.
    stepped = {canaries.typed(f"step {i}", "number", 3, 30, 5) for i in range(100)}
    assert stepped == {"3", "8", "13", "18", "23", "28"}
    cents = [canaries.typed(f"price {i}", "number", 0.5, 20, 0.25) for i in range(50)]
    assert all(0.5 <= float(c) <= 20 and (float(c) - 0.5) / 0.25 == int((float(c) - 0.5) / 0.25) for c in cents)
    assert all(len(c.partition(".")[2]) == 2 for c in cents)


def test_the_other_data_run_differs_in_every_value_even_a_one_digit_one():
    """``B`` (``base``: ``A``'s seed) never repeats ``A``'s value, so a leak of a one-digit count
    changes what is sent; an attribution run varies its input to exactly ``B``'s value."""
    state = {"cart": {"count": 4, "flag": True, "note": "x"}}
    for i in range(300):
        a = Canaries(f"a{i}").state(state, ["cart"])["cart"]
        b = Canaries(f"b{i}", base=f"a{i}").state(state, ["cart"])["cart"]
        assert a["count"] != b["count"] and a["note"] != b["note"] and a["flag"] is b["flag"] is True
        c = Canaries(f"a{i}", vary=frozenset({"cart.count"}), alt_seed=f"b{i}").state(state, ["cart"])["cart"]
        assert c["count"] == b["count"] and c["note"] == a["note"]
    typed_a, typed_b = Canaries("a").typed("q", "number", 1, 2), Canaries("b", base="a").typed("q", "number", 1, 2)
    assert typed_a != typed_b


_NUMBERS = st.one_of(st.integers(-(10**18), 10**18), st.floats(allow_nan=False, allow_infinity=False, min_value=-1e18, max_value=1e18))


def _shape(x: float) -> tuple[int, int, int]:
    """(sign, digits before the point, digits after it) as JSON writes ``x``."""
    whole, _, fraction = format(decimal.Decimal(repr(x) if isinstance(x, float) else x), "f").lstrip("-").partition(".")
    fraction = fraction.rstrip("0")
    return (-1 if x < 0 else 1 if x > 0 else 0), len(whole.lstrip("0")), len(fraction)


@settings(max_examples=300, deadline=None)
@given(_NUMBERS, st.text(min_size=1, max_size=8))
def test_every_number_canary_has_its_original_s_shape(original, seed):
    value = Canaries(seed).state({"n": original}, ["n"])["n"]
    again = Canaries(seed).state({"n": original}, ["n"])["n"]
    assert value == again and math.isfinite(value)
    sign, before, after = _shape(original)
    got_sign, got_before, got_after = _shape(value)
    if sign:
        assert got_sign in (sign, 0) and got_before == min(before, 15)
    else:
        assert 0 <= value <= 9
    assert got_after == (min(after, 6, 15 - min(before, 15)) if sign else 0)
    assert json.loads(json.dumps(value)) == value  # what the block reads is this number


def test_realistic_canaries_are_found_after_encoding():
    canaries = Canaries()
    state = canaries.state({"customer": {"name": "Ann Lee", "id": 4402913}}, ["customer", "order.total"])
    encoded = base64.urlsafe_b64encode(json.dumps(state).encode()).decode()
    found = canaries.find("https://x.example/?d=" + urllib.parse.quote(encoded))
    assert set(found) == {"customer.name", "customer.id", "order.total"}
    assert canaries.find("https://x.example/?u=" + urllib.parse.quote_plus(state["customer"]["name"].upper())) == {
        "customer.name": "percent-encoded"}
    assert canaries.find(f"https://x.example/?n=1{state['customer']['id']}") == {}  # a whole run of digits only
    typed = canaries.typed("(typed into <input> #0 'q')")
    assert canaries.find("https://k.example/?" + typed.encode().hex()) == {"(typed into <input> #0 'q')": "hex"}


def test_a_short_number_is_left_to_the_differential_review():
    """Fewer than FINDABLE_DIGITS digits match too much else by chance (a path's 412, a width's 160):
    the fast path names none of them, the differential runs do."""
    canaries = Canaries("seed")
    state = canaries.state({"age": 41, "total": 125.5}, ["age", "total"])
    assert canaries.find(f"https://x.example/?a={state['age']}&t={state['total']}") == {}
    assert len(str(10 ** (FINDABLE_DIGITS - 1))) == FINDABLE_DIGITS


def test_a_bridge_payload_names_a_short_number_it_hands_over_as_a_value():
    """The starter sends ``{total: order.total}`` with flowUi.send: a total of 24.5 stays a two-digit
    total, too short for the fast path, and is named as the payload's value; a constant of one
    digit is no canary's."""
    canaries = Canaries("seed")
    state = canaries.state({"order": {"total": 24.5, "qty": 2}}, ["order"])
    total = state["order"]["total"]
    assert canaries.find(json.dumps({"total": total})) == {}
    assert canaries.in_values({"total": total, "n": [str(total)]}) == {"order.total": "as a value"}
    assert canaries.in_values({"total": total + 0.1, "qty": state["order"]["qty"]}) == {}
    assert canaries.table().in_values([{"t": total}]) == {"order.total": "as a value"}


def test_whether_a_payload_value_is_named_does_not_change_from_run_to_run():
    """Named or not follows the original's shape (three digits or more), never the draw: a count of
    120 is named in every run even when its canary is 340, a margin of 0.42 in none; a typed number
    (its digits depend on the draw) never."""
    for i in range(200):
        canaries = Canaries(f"r{i}")
        state = canaries.state({"total": 24.5, "count": 120, "margin": 0.42}, ["total", "count", "margin"])
        typed = canaries.typed("(typed into <input type=number> #0 'size')", "number", 1, 5000)
        assert set(canaries.in_values({**state, "size": int(typed)})) == {"total", "count"}


def _luhn(digits: str) -> bool:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 else 1)
        total += n - 9 if n > 9 else n
    return total % 10 == 0


def test_a_field_that_says_it_holds_digits_or_a_card_is_typed_into_with_them():
    """An outsider's keylogger sent what was typed into a card field only when it was 13 digits or
    more passing the Luhn check: the review typed words into every text field (its ``autocomplete``
    and ``inputmode`` unread), so it sent nothing. The field's own words say what a customer types."""
    from flowui_sandbox.sandbox.review.browser.run import typed_kind

    card = {"type": "text", "autocomplete": "cc-number", "inputmode": "numeric"}
    assert typed_kind(card) == "card"
    assert typed_kind({"type": "", "inputmode": "numeric"}) == typed_kind({"autocomplete": "shipping postal-code"}) == "digits"
    assert typed_kind({"type": "text", "autocomplete": "tel-national"}) == "tel"
    assert typed_kind({"type": "email", "autocomplete": "cc-number"}) == "email"  # the type wins
    assert typed_kind({"type": "tel", "autocomplete": "cc-number"}) == "card"  # a card form's digit keyboard
    assert typed_kind({"type": "tel"}) == "tel"
    assert typed_kind({"type": "text"}) == "text"
    for i in range(200):
        canaries = Canaries(f"c{i}")
        number = canaries.typed("(typed into <input> #0 'card')", "card")
        assert number.isdigit() and len(number) == 16 and _luhn(number), number
        assert canaries.find(f"x={number}") == {"(typed into <input> #0 'card')": "as sent"}
        code = canaries.typed("(typed into <input> #1 'zip')", "digits", length=5)
        assert code.isdigit() and len(code) == 5 and code[0] != "0"
        assert not canaries.findable("(typed into <input> #1 'zip')")  # five digits match too much by chance


def test_an_email_made_of_its_persons_name_is_made_of_the_canary_name():
    """An outsider's block sent the email only when its name part began with the person's first
    name and held the start of the last (as a customer's does): the review's email and name were
    drawn apart, so it sent nothing. The relation is kept; an email of other words is drawn."""
    state = {"customer": {"name": "Anna Smith", "email": "anna.smith@gmail.com", "backup": "ops-team@corp.example"}}
    for i in range(100):
        a = Canaries(f"a{i}").state(state, ["customer"])["customer"]
        b = Canaries(f"b{i}", base=f"a{i}").state(state, ["customer"])["customer"]
        first, last = a["name"].lower().split()
        assert a["email"].split("@")[0] == f"{first}.{last}", a
        assert a["backup"].split("@")[0] != f"{first}.{last}" and not a["backup"].startswith("ops-team"), a
        assert b["email"] != a["email"] and b["email"].split("@")[0] == b["name"].lower().replace(" ", ".")
    for written, shape in (("annasmith85@x.de", "{first}{last}85"), ("a.smith@x.de", "{initial}.{last}"),
                           ("smith_anna@x.de", "{last}_{first}")):
        got = Canaries("d").state({"customer": {"name": "Anna Smith", "email": written}}, ["customer"])["customer"]
        first, last = got["name"].lower().split()
        assert got["email"].split("@")[0] == shape.format(first=first, last=last, initial=first[0]), got
    canaries = Canaries("c")
    email = canaries.state(state, ["customer"])["customer"]["email"]
    assert canaries.find(f"u={email}") == {"customer.email": "as sent"}


def test_an_attribution_run_that_varies_the_name_leaves_the_related_email_as_it_was():
    """Else a block that sends only the email (split_xor_hex) was taken to send the name too: the
    email changed with the name in the run that varied the name alone."""
    state = {"customer": {"name": "Ann Lee", "email": "ann.lee@example.com"}}
    for i in range(50):
        a = Canaries(f"s{i}").state(state, ["customer"])["customer"]
        name_varied = Canaries(f"s{i}", vary=frozenset({"customer.name"}), alt_seed=f"t{i}").state(state, ["customer"])["customer"]
        email_varied = Canaries(f"s{i}", vary=frozenset({"customer.email"}), alt_seed=f"t{i}").state(state, ["customer"])["customer"]
        assert name_varied["name"] != a["name"] and name_varied["email"] == a["email"], (a, name_varied)
        assert email_varied["name"] == a["name"] and email_varied["email"] != a["email"], (a, email_varied)
