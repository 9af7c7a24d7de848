"""A generator command as `verify --generator-protocol json` runs it (docs/GENERATORS.md).

It reads one JSON request on stdin and prints the block's <iframe>; a platform puts its own
generator here. This one builds the iframe with flowui-sandbox's own generator.
"""

import json
import sys

from flowui_sandbox.sandbox.block.srcdoc import build_iframe


def main() -> int:
    request = json.load(sys.stdin)
    if request.get("version") != 1:
        print(f"unknown request version {request.get('version')!r}", file=sys.stderr)
        return 2
    try:
        html = build_iframe(request["source"], block_id=request["block_id"], fields=request["fields"],
                            state=request["state"], theme=request["theme"])
    except ValueError as exc:  # an input it refuses (every UsageError, ThemeError too, is one): exit 2, the reason on stderr
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    sys.stdout.write(html)
    return 0


if __name__ == "__main__":
    sys.exit(main())
