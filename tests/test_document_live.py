"""The live page server's reading of upward messages (sandbox/document/live.py)."""

import asyncio
import json

import pytest

from flowui_sandbox.sandbox.document.live import LiveServer, message_text
from flowui_sandbox.sandbox.errors import UsageError

DOC = {"start_page_id": "p", "pages": [{"page_id": "p", "blocks": [{"block_id": "t", "type": "text", "markdown": "{note}"}]}]}
GOOD = json.dumps({"role": "ROLE_USER", "contextId": "ctx-live", "parts": [{"text": "привет"}]}, ensure_ascii=False).encode()


def test_a_body_is_utf8_whatever_it_is_labelled():
    assert message_text(GOOD, None) == GOOD.decode()
    assert message_text(GOOD, "UTF-8") == message_text(GOOD, "utf8") == GOOD.decode()
    for charset in ("utf-16", "x-no-such", "latin-1", ""):
        with pytest.raises(UsageError, match="a message is JSON in UTF-8") as caught:
            message_text(GOOD, charset)
        assert len(str(caught.value).splitlines()) == 1
    with pytest.raises(UsageError) as caught:
        message_text(b'{"a":\n  "x\xff"}', None)
    assert str(caught.value) == "message:2:5: not UTF-8 (byte 0xFF at offset 10); a message is JSON in UTF-8"
    with pytest.raises(UsageError, match="…"):
        message_text(GOOD, "x" * 10_000)


def test_the_live_server_answers_400_not_500_to_a_body_it_cannot_read():
    """request.text() raised UnicodeDecodeError or LookupError for a body that is not UTF-8, an
    unknown charset or UTF-8 labelled utf-16: HTTP 500 with a traceback."""
    import aiohttp

    bodies = [(b'{"role":"ROLE_USER","contextId":"ctx-live","parts":[{"text":"\xff"}]}', "application/json"),
              (GOOD, "application/json; charset=x-no-such"),
              (GOOD, "application/json; charset=utf-16"),
              (GOOD, "application/json"),
              (GOOD, "application/json; charset=utf-8")]

    async def scenario():
        server = await LiveServer(DOC, {"note": "n"}).start()
        try:
            async with aiohttp.ClientSession() as client:
                events = await client.get(server.url + "events")
                assert (await events.content.readline()).startswith(b"data: ")
                answers = []
                for body, content_type in bodies:
                    async with client.post(server.url + "message", data=body, headers={"content-type": content_type}) as response:
                        answers.append((response.status, await response.json()))
                events.close()
                return answers
        finally:
            await server.stop()

    answers = asyncio.run(scenario())
    assert [status for status, _ in answers] == [400, 400, 400, 200, 200], answers
    assert answers[0][1]["problems"] == ["message:1:62: not UTF-8 (byte 0xFF at offset 61); a message is JSON in UTF-8"]
    assert answers[1][1]["problems"] == ["message: charset 'x-no-such': a message is JSON in UTF-8 (charset=utf-8, or none)"]
    assert answers[2][1]["problems"] == ["message: charset 'utf-16': a message is JSON in UTF-8 (charset=utf-8, or none)"]
