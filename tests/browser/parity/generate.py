"""Generated half of the parity corpus: random markup from a seeded grammar.

Every input mixes the constructs where HTML parsers disagree (implied end tags,
tables, formatting elements, select, foreign content, templates, raw text,
comments, character references, broken quoting) with data-bind/data-show
attributes, so a difference in tree construction shows up as a difference in the
extracted values. Same seed, same corpus: ``python tests/browser/parity/generate.py``
prints it.
"""

from __future__ import annotations

import json
import random

SEED = 20261129
COUNT = 300

TAGS = (
    "div span p b i a u s em strong nobr font li ul ol dl dt dd table caption colgroup col tbody tr td th "
    "form button select option optgroup selectedcontent datalist input textarea label h1 h2 pre listing "
    "svg g foreignObject desc math mi mtext annotation-xml template section article my-el br img hr image"
).split()
RAW = "script style title textarea xmp noscript iframe".split()
VALUES = ("a", "b.c", "x_1", "items.0", "A", "a b", "&amp;", "&copy", "&copy=", "&notit;", "&#65;", "é", "", "a\nb", "1", "z.9.q")


def _value(rng: random.Random) -> str:
    value = rng.choice(VALUES) + rng.choice(("", str(rng.randrange(5))))
    quote = rng.choice(('"', "'", "", '"'))
    if quote == "" and (value == "" or any(c in value for c in " \n\"'=<>`")):
        quote = '"'
    return f"{quote}{value}{quote}"


def _attributes(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        name = rng.choice(("data-bind", "data-show", "data-bind", "DATA-BIND", "class", "selected", "shadowrootmode", "type", "encoding"))
        if name == "shadowrootmode":
            parts.append(f"{name}={rng.choice(('open', 'closed', 'OPEN', 'bad'))}")
        elif name == "type":
            parts.append("type=hidden")
        elif name == "encoding":
            parts.append('encoding="text/html"')
        elif name == "selected":
            parts.append("selected")
        else:
            parts.append(f"{name}={_value(rng)}")
    return "".join(" " + p for p in parts)


def _markup(rng: random.Random, budget: int) -> str:
    out: list[str] = []
    open_tags: list[str] = []
    for _ in range(budget):
        roll = rng.random()
        if roll < 0.45:
            tag = rng.choice(TAGS)
            if rng.random() < 0.1:
                tag = tag.upper()
            end = "/>" if rng.random() < 0.05 else ">"
            out.append(f"<{tag}{_attributes(rng)}{end}")
            open_tags.append(tag)
        elif roll < 0.65 and open_tags:
            # close something: usually the innermost, sometimes misnested, sometimes stray
            pick = rng.random()
            tag = open_tags.pop() if pick < 0.6 else open_tags.pop(rng.randrange(len(open_tags))) if pick < 0.85 else rng.choice(TAGS)
            out.append(f"</{tag}{_attributes(rng) if rng.random() < 0.05 else ''}>")
        elif roll < 0.78:
            out.append(rng.choice(("x", " ", "text", "&amp;", "&lt;", "\n", "\r\n", "\0", "&nbsp", "é")))
        elif roll < 0.84:
            tag = rng.choice(RAW)
            inner = f"<b data-bind={_value(rng)}></b>"
            close = f"</{tag}>" if rng.random() < 0.85 else ""
            out.append(f"<{tag}{_attributes(rng)}>{inner}{close}")
        elif roll < 0.89:
            out.append(rng.choice(("<!--", "<!-- c -->", "-->", "<!-->", "<![CDATA[", "]]>", "<?pi>", "</ x>")))
        elif roll < 0.92:
            out.append(rng.choice(('<b data-bind="unclosed', "<i data-show='half", "<u data-bind=x", "<")))
        else:
            out.append(f"<b data-bind={_value(rng)}></b>")
    return "".join(out)


def generate(seed: int = SEED, count: int = COUNT) -> list[dict[str, str]]:
    rng = random.Random(seed)
    return [{"name": f"generated_{i:03d}", "source": _markup(rng, rng.randrange(4, 40))} for i in range(count)]


if __name__ == "__main__":
    print(json.dumps(generate(), ensure_ascii=False, indent=1))
