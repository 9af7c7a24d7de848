"""Save-time checks of input blocks (sandbox/document/validate.py) that the ui-action check
relies on: distinct option values, dates that exist, no two inputs writing one path."""

from flowui_sandbox.sandbox.document import check_document


def page(*blocks):
    return {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": list(blocks)}]}


def problems(doc):
    return [str(p) for p in check_document(doc).problems]


def text(i, field):
    return {"block_id": f"i{i}", "type": "text_input", "field": field}


def test_one_and_one_point_zero_are_one_option():
    """Issue 21 item 13: 1 and 1.0 are one JSON number (the browser cannot tell them apart)."""
    select = {"block_id": "s", "type": "select", "field": "n", "options": [
        {"value": 1, "label": "a"}, {"value": 1.0, "label": "b"}, {"value": True, "label": "c"}, {"value": "1", "label": "d"}]}
    assert problems(page(select)) == ["pages[0].blocks[0].options[1].value: the option value 1.0 appears twice"]


def test_impossible_dates_are_refused_as_min_and_max():
    doc = page({"block_id": "d", "type": "date_input", "field": "d", "min": "2026-02-30", "max": "2026-12-31"},
               {"block_id": "t", "type": "datetime_input", "field": "t", "max": "2026-02-28T25:00"})
    assert problems(doc) == ["pages[0].blocks[0].min: '2026-02-30' is not a date that exists",
                             "pages[0].blocks[1].max: '2026-02-28T25:00' is not a date and time that exists"]


def test_every_overlapping_pair_of_input_fields_is_reported():
    """Issue 21 item 13: of three overlapping fields, every pair of paths (not only sorted
    neighbours); inputs on one path are one problem naming them."""
    doc = page(text(0, "a.b"), text(1, "a"), text(2, "a.c"), text(3, "x"))
    assert problems(doc) == [
        "pages[0].blocks[1].field: field 'a' contains field 'a.b' of pages[0].blocks[0] on the same page: the ui-action would write one path twice",
        "pages[0].blocks[2].field: field 'a.c' lies inside field 'a' of pages[0].blocks[1] on the same page: the ui-action would write one path twice",
    ]
    same = problems(page(text(0, "a"), text(1, "a"), text(2, "a"), text(3, "a.b")))
    assert same == [
        "pages[0].blocks[1].field: field 'a' is the same as field 'a' of pages[0].blocks[0], pages[0].blocks[2] on the same page: "
        "the ui-action would write one path twice",
        "pages[0].blocks[3].field: field 'a.b' lies inside field 'a' of pages[0].blocks[0] on the same page: the ui-action would write one path twice",
    ]


def test_many_distinct_fields_are_no_problem():
    doc = page(*[text(i, f"f{i}.v") for i in range(3000)])
    assert problems(doc) == []
