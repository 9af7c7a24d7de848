"""A third-party generator speaking `verify --generator-protocol json`: it reads the JSON request on
stdin and prints the iframe our build_iframe makes. With --unescaped-state it has the bug a
hand-written generator most likely has: the init JSON written with json.dumps, so a state value
holding </script> ends the script element. verify must flag that as UNEXPECTED.
"""

from __future__ import annotations

import json
import sys

from flowui_sandbox.sandbox.block.srcdoc import build_srcdoc, iframe_for
from flowui_sandbox.sandbox.errors import SandboxError

INIT_OPEN = '<script type="application/json" id="flow-ui-init">'


def main() -> int:
    request = json.load(sys.stdin)
    if request.get("version") != 1:
        print(f"unknown request version {request.get('version')!r}", file=sys.stderr)
        return 2
    try:
        srcdoc = build_srcdoc(request["source"], block_id=request["block_id"], fields=request["fields"],
                              state=request["state"], theme=request["theme"])
    except (SandboxError, ValueError) as exc:  # a refused input: exit 2, the reason on stderr
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    if "--unescaped-state" in sys.argv[1:]:
        start = srcdoc.index(INIT_OPEN) + len(INIT_OPEN)
        end = srcdoc.index("</script>", start)  # the escaped init JSON holds no "</script>"
        srcdoc = srcdoc[:start] + json.dumps(json.loads(srcdoc[start:end]), ensure_ascii=False) + srcdoc[end:]
    sys.stdout.write(iframe_for(srcdoc, block_id=request["block_id"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
