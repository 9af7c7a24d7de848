"""The pytest plugin (:mod:`.fixtures`, registered as the ``flowui_sandbox`` entry point), the host
page it mounts blocks in (:mod:`.block_host`) and its launch arguments for pytest-playwright's
browsers (:mod:`.launch_args`).
"""
