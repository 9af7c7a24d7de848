"""Hosts the review names as the viewer's own machine or network (sandbox/review/urls.py), and
ports taken off a request's host as browsers write it.

The oracle for the spellings of an IPv4 host is the URL standard's parser as Node implements it
(``new URL('https://HOST/').hostname``): each IPv4-looking row is read as Node reads it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from flowui_sandbox.sandbox.review.urls import private_network, without_port

ROWS = [
    ("127.0.0.1", "this machine"), ("127.0.0.1:8443", "this machine"), ("127.7.7.7", "this machine"),
    ("2130706433", "this machine"), ("0x7f.1", "this machine"), ("127.1", "this machine"), ("017700000001", "this machine"),
    ("0.0.0.0", "this machine"), ("[::1]", "this machine"), ("[::1]:9443", "this machine"), ("::1", "this machine"),
    ("[::ffff:127.0.0.1]", "this machine"), ("localhost", "this machine"), ("LocalHost.", "this machine"),
    ("dev.localhost:3000", "this machine"), ("%31%32%37.0.0.1", "this machine"),
    ("\uff11\uff12\uff17\u3002\uff10\u3002\uff10\u3002\uff11", "this machine"), ("192\uff0e168\uff0e1\uff0e1", "a private network"),
    ("10.1.2.3", "a private network"), ("172.16.0.1", "a private network"), ("192.168.1.1", "a private network"),
    ("0xc0.0xa8.1.1", "a private network"), ("100.64.0.1", "a private network"), ("[fd00::5]:8443", "a private network"),
    ("db.internal", "a private network"),
    ("169.254.169.254", "the link-local network"), ("[fe80::1]", "the link-local network"),
    ("printer.local", "the local network (mDNS)"), ("router.home.arpa", "the home network"),
    # Public names that resolve to the address they carry, or to 127.0.0.1 whatever the subdomain.
    ("127.0.0.1.nip.io", "this machine"), ("app.10.0.0.1.nip.io", "a private network"),
    ("magic-192-168-1-1.sslip.io", "a private network"), ("7f000001.nip.io", "this machine"),
    ("--1.sslip.io", "this machine"), ("api.lvh.me:3000", "this machine"), ("localtest.me", "this machine"),
    ("8.8.8.8.nip.io", None), ("www.nip.io", None), ("lvh.me.evil.example", None),
    ("172.32.0.1", None), ("8.8.8.8", None), ("0xdeadbeef", None), ("evil.example", None), ("cdn.example.com:443", None),
    ("deadbeef", None), ("localhost.evil.example", None), ("local.example", None), ("[2606:4700::1]", None),
]


@pytest.mark.parametrize(("host", "network"), ROWS, ids=[h for h, _ in ROWS])
def test_the_viewers_machine_and_network_however_spelled(host, network):
    assert private_network(host) == network


def test_the_ipv4_spellings_read_as_the_url_standard_reads_them():
    """Every IPv4-looking host of the table is, to Node's URL parser, an address of the same network."""
    node = shutil.which("node")
    assert node, "node is needed (make setup installs it)"
    hosts = [without_port(h) for h, _ in ROWS if not h.startswith("[") and ":" not in without_port(h)]
    script = "const hs = JSON.parse(process.argv[1]); console.log(JSON.stringify(hs.map((h) => new URL('https://' + h + '/').hostname)))"
    canonical = json.loads(subprocess.run([node, "-e", script, json.dumps(hosts)], capture_output=True, text=True, check=True).stdout)
    for host, name in zip(hosts, canonical):
        assert private_network(name) == private_network(host), (host, name)


def test_a_port_comes_off_a_host_as_browsers_write_it():
    assert [without_port(a) for a in ("a.example:8443", "a.example", "[::1]:9443", "[::1]", "127.0.0.1:1")] == \
        ["a.example", "a.example", "[::1]", "[::1]", "127.0.0.1"]
