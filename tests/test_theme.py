"""Theme: the token list, strict value grammars, defaults and CSS rendering."""

import pytest
from pydantic import ValidationError

from flowui_sandbox.theme import CSS_PREFIX, DARK, LIGHT, TOKENS, Theme, ThemeError

SPEC_TOKENS = "text heading muted border panel surface input accent accent-hover on-accent accent-muted radius radius-md page-background"


def test_token_list_is_the_spec_list():
    assert list(TOKENS) == SPEC_TOKENS.split()


@pytest.mark.parametrize("default", [LIGHT, DARK], ids=["light", "dark"])
def test_defaults_are_complete_and_valid(default):
    assert set(default.tokens) == set(TOKENS)
    assert Theme.parse(default.to_json()) == default


def test_partial_theme_takes_the_rest_from_its_scheme():
    theme = Theme.parse({"color-scheme": "dark", "accent": "#ff6600"})
    assert theme.color_scheme == "dark"
    assert theme.tokens["accent"] == "#ff6600"
    assert theme.tokens["text"] == DARK.tokens["text"]


def test_css_sets_every_variable_and_the_color_scheme():
    css = LIGHT.to_css()
    assert css.startswith(":root{color-scheme:light;")
    for token, value in LIGHT.tokens.items():
        assert f"{CSS_PREFIX}{token}:{value};" in css


@pytest.mark.parametrize(
    "token,value",
    [
        ("accent", "#0969da"), ("accent", "#fff"), ("accent", "#ffff"), ("accent", "#11223344"),
        ("text", "rgb(1, 2, 3)"), ("text", "rgba(1,2,3,.5)"), ("text", "rgb(1 2 3 / 50%)"),
        ("muted", "hsl(210, 10%, 40%)"), ("muted", "hsla(210deg 10% 40% / 0.4)"),
        ("panel", "transparent"), ("panel", "RebeccaPurple"), ("radius", "0"), ("radius", "6px"),
        ("radius-md", "0.75rem"), ("radius-md", "1.5em"), ("radius", "50%"),
    ],
)
def test_good_values_are_accepted(token, value):
    assert Theme.parse({token: value}).tokens[token] == value


@pytest.mark.parametrize(
    "token,value",
    [
        ("accent", "red;}body{display:none"), ("accent", "red</style><script>alert(1)</script>"),
        ("accent", "url(https://evil.example/x)"), ("accent", "expression(alert(1))"),
        ("accent", "#12345"), ("accent", "rgb(1,2)"), ("accent", "var(--x)"), ("accent", ""),
        ("accent", "red /* c */"), ("accent", "\\72 ed"), ("accent", "red\n"), ("accent", 12),
        ("radius", "6"), ("radius", "6 px"), ("radius", "calc(1px + 2px)"), ("radius", "6px;"),
        ("radius", "1" * 100 + "px"), ("text", None), ("text", "#fff\x00"),
    ],
)
def test_bad_values_are_refused_naming_token_and_value(token, value):
    with pytest.raises(ThemeError) as info:
        Theme.parse({token: value})
    message = str(info.value)
    assert repr(token) in message
    assert repr(value)[:20] in message


def test_unknown_token_and_bad_scheme_are_refused():
    with pytest.raises(ThemeError, match="unknown token 'accentt'"):
        Theme.parse({"accentt": "#fff"})
    with pytest.raises(ThemeError, match="color-scheme"):
        Theme.parse({"color-scheme": "sepia"})
    with pytest.raises(ThemeError, match="JSON object"):
        Theme.parse(["#fff"])  # type: ignore[arg-type]


def test_every_problem_is_reported_at_once():
    with pytest.raises(ThemeError) as info:
        Theme.parse({"accent": "x;", "radius": "y}"})
    assert "'accent'" in str(info.value) and "'radius'" in str(info.value)


def test_model_refuses_bad_or_missing_tokens_too():
    with pytest.raises(ValidationError, match="missing tokens"):
        Theme(tokens={"text": "#fff"})
    with pytest.raises(ValidationError, match="'accent'"):
        Theme(tokens={**LIGHT.tokens, "accent": "red}"})
