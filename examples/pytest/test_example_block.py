"""Mount my own block in every engine and assert on its bridge traffic (docs/PYTEST.md)."""

BLOCK = """<p>Total: <b id="total" data-bind="order.total"></b></p>
<input id="email" aria-label="email">
<button id="pay">Pay</button>
<script>
  const email = document.getElementById('email');
  email.addEventListener('change', () => flowUi.setValue('draft.email', email.value));
  document.getElementById('pay').addEventListener('click', async () => {
    const answer = await flowUi.send('pay', { total: flowUi.get('order.total') });
    document.getElementById('pay').textContent = answer.ok ? 'Paid' : 'Declined';
  });
  fetch('https://tracker.example/collect', { method: 'POST' }).catch(() => {});  // the block's CSP stops it
</script>"""

STATE = {"order": {"total": "12.50"}, "draft": {"email": ""}, "api_token": "never-projected"}


def test_pay_sends_one_action_and_shows_the_answer(flowui_host):
    block = flowui_host.mount(BLOCK, block_id="checkout", state=STATE, fields=["draft.email"],
                              answers={"pay": {"ok": True}})
    assert block.evaluate("() => document.getElementById('total').textContent") == "12.50"
    block.click("#pay")  # a real user click, in Chromium, Firefox and WebKit alike
    [action] = block.wait_for_traffic("actions")
    assert action["action"] == "pay" and action["source"] == "checkout"
    assert action["payload"] == {"total": "12.50"}
    assert block.wait_for("() => document.getElementById('pay').textContent === 'Paid'")


def test_the_email_is_written_back_and_the_rest_stays_on_the_host(flowui_host):
    block = flowui_host.mount(BLOCK, block_id="checkout", state=STATE, fields=["draft.email"])
    block.evaluate("""() => {
      const email = document.getElementById('email');
      email.value = 'ann@example.com';
      email.dispatchEvent(new Event('change'));
    }""")
    assert block.wait_for_traffic("values") == [{"blockId": "checkout", "path": "draft.email", "value": "ann@example.com"}]
    # The block gets only the paths it reads: the token never reaches it.
    assert block.evaluate("() => flowUi.get('api_token')") is None
    # The tracker's request was blocked by the CSP, and the host's log says so.
    assert "tracker.example" in block.wait_for_log("csp-violation")["message"]
    assert flowui_host.errors() == []
