"""What runs around the browsers: the local servers pages load, work spread over remote
browsers, the browser server other machines drive, and synchronous code over the async harness.

Modules: :mod:`.server` (the aiohttp servers on 127.0.0.1), :mod:`.remote` (workers over remote
browsers and the names of the servers they reach), :mod:`.browser_server` (what a browser machine
runs), :mod:`.portal` (an asyncio loop in a thread, for the pytest plugin).
"""
