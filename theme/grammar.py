"""Strict value grammars for theme tokens.

Only values that cannot leave a CSS declaration are accepted: no quotes,
semicolons, braces, angle brackets, backslashes, comments or url(). Colors
are hex, rgb()/rgba()/hsl()/hsla() with plain numbers, or a CSS named color;
lengths are 0 or a number with px, rem, em or %.
"""

from __future__ import annotations

import re

_NUM = r"[+-]?(?:\d+(?:\.\d+)?|\.\d+)"
_PCT = rf"{_NUM}%"
_ALPHA = rf"(?:{_NUM}%?)"
_HEX = r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})"
_RGB_LEGACY = rf"rgba?\(\s*{_NUM}%?\s*,\s*{_NUM}%?\s*,\s*{_NUM}%?\s*(?:,\s*{_ALPHA}\s*)?\)"
_RGB_MODERN = rf"rgba?\(\s*{_NUM}%?\s+{_NUM}%?\s+{_NUM}%?\s*(?:/\s*{_ALPHA}\s*)?\)"
_HUE = rf"{_NUM}(?:deg|turn|rad|grad)?"
_HSL_LEGACY = rf"hsla?\(\s*{_HUE}\s*,\s*{_PCT}\s*,\s*{_PCT}\s*(?:,\s*{_ALPHA}\s*)?\)"
_HSL_MODERN = rf"hsla?\(\s*{_HUE}\s+{_NUM}%?\s+{_NUM}%?\s*(?:/\s*{_ALPHA}\s*)?\)"

NAMED_COLORS = frozenset(
    """transparent currentcolor aliceblue antiquewhite aqua aquamarine azure beige bisque black
    blanchedalmond blue blueviolet brown burlywood cadetblue chartreuse chocolate coral
    cornflowerblue cornsilk crimson cyan darkblue darkcyan darkgoldenrod darkgray darkgreen darkgrey
    darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred darksalmon darkseagreen
    darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink deepskyblue dimgray
    dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold goldenrod
    gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki lavender lavenderblush
    lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow lightgray lightgreen
    lightgrey lightpink lightsalmon lightseagreen lightskyblue lightslategray lightslategrey
    lightsteelblue lightyellow lime limegreen linen magenta maroon mediumaquamarine mediumblue
    mediumorchid mediumpurple mediumseagreen mediumslateblue mediumspringgreen mediumturquoise
    mediumvioletred midnightblue mintcream mistyrose moccasin navajowhite navy oldlace olive
    olivedrab orange orangered orchid palegoldenrod palegreen paleturquoise palevioletred papayawhip
    peachpuff peru pink plum powderblue purple rebeccapurple red rosybrown royalblue saddlebrown
    salmon sandybrown seagreen seashell sienna silver skyblue slateblue slategray slategrey snow
    springgreen steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow
    yellowgreen""".split()
)

COLOR_PATTERN = rf"{_HEX}|{_RGB_LEGACY}|{_RGB_MODERN}|{_HSL_LEGACY}|{_HSL_MODERN}"
LENGTH_PATTERN = rf"0|{_NUM}(?:px|rem|em|%)"
#: Longest value accepted for any token (a generous bound on the grammars above).
MAX_VALUE_LENGTH = 64

# re.ASCII: \d and \s mean what they mean in JavaScript (no Unicode digits or spaces).
_COLOR = re.compile(rf"(?:{COLOR_PATTERN})\Z", re.ASCII)
_LENGTH = re.compile(rf"(?:{LENGTH_PATTERN})\Z", re.ASCII)


def color_problem(value: str) -> str | None:
    if len(value) > MAX_VALUE_LENGTH:
        return f"is longer than {MAX_VALUE_LENGTH} characters"
    if value.lower() in NAMED_COLORS or _COLOR.match(value):
        return None
    return "is not a color (#hex, rgb(), rgba(), hsl(), hsla() or a CSS color name)"


def length_problem(value: str) -> str | None:
    if len(value) > MAX_VALUE_LENGTH:
        return f"is longer than {MAX_VALUE_LENGTH} characters"
    if _LENGTH.match(value):
        return None
    return "is not a length (0, or a number with px, rem, em or %)"
