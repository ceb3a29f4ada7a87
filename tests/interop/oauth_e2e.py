#!/usr/bin/env python3
"""End-to-end OAuth: `mcp` (our client, headless) against `mcp-device --http` protected by the JWT
validator of mcp-sansio-http, with a real local authorization server (oauth2-mock-server, wrapped
by tests/interop/oauth_as.mjs: RFC 8414 metadata, dynamic registration, RS256 tokens whose `aud`
is the requested resource, short lifetimes).

Usage: python3 tests/interop/oauth_e2e.py --mcp target/release/mcp --device target/release/mcp-device

Checks (the calls in both eras where said):
  - `mcp login <URL>`: the device answers 401 naming its resource metadata; the client discovers the
    authorization server, registers (once), authorizes with PKCE (headless), exchanges the code,
    and keeps tokens and registration in its credentials file (0600);
  - `mcp call` afterwards uses the kept token: no new registration or authorization;
  - after the token expires the call still succeeds: one refresh grant, no new authorization;
  - the server then requires one more scope: its 403 `insufficient_scope` makes the client
    authorize again for the union of the scopes (step-up), and the call succeeds;
  - a token for another resource (the credentials of a second device, presented to the first by
    hand) is refused with 401 `invalid_token`, and so are a missing and a malformed token;
  - with the authorization server gone, a client without tokens fails with a clear error in
    bounded time (nothing retried forever);
  - DPoP (a second authorization server with --dpop: tokens bound to the proof's key): `mcp login`
    gets a bound token and keeps its key, `mcp call` (a new process, both eras) proves it with the
    kept key, and again after a refresh; the bound token as a bearer token is refused with 401.
Prints one line per check and `oauth-e2e interop: N passed, M failed` last; exits non-zero on
any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from paths import HERE, NODE

TTL_S = 3  # access token lifetime: short, to see a refresh
SCOPE = "mcp:read"

passed = failed = 0


def check(name: str, ok: bool, detail: object = "") -> bool:
    global passed, failed
    if ok:
        passed += 1
        print(f"  ok   {name}", flush=True)
    else:
        failed += 1
        print(f"  FAIL {name}: {detail}", flush=True)
    return ok


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def start_as(*flags: str) -> tuple[subprocess.Popen, str]:
    p = subprocess.Popen([NODE, os.path.join(HERE, "oauth_as.mjs"), "--ttl", str(TTL_S), *flags],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline() if p.stdout else ""
    if not line.startswith("ISSUER "):
        raise RuntimeError(f"the authorization server did not start: {line!r}")
    return p, line.split()[1]


def stats(issuer: str) -> dict:
    with urllib.request.urlopen(f"{issuer}/__stats", timeout=5) as r:
        return json.load(r)


def start_device(device: str, issuer: str, port: int | None = None,
                 scopes: tuple[str, ...] = (SCOPE,)) -> tuple[subprocess.Popen, str]:
    port = port or free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    args = [device, "--http", f"127.0.0.1:{port}", "--jwt-issuer", issuer, "--jwt-audience", url,
            "--jwks-url", f"{issuer}/jwks", "--jwt-leeway", "0"]
    for scope in scopes:
        args += ["--required-scope", scope]
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if not wait_for_port(port):
        p.kill()
        raise RuntimeError(f"mcp-device did not listen: {' '.join(args)}: {p.stderr.read() if p.stderr else ''}")
    return p, url


def mcp(binary: str, creds: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    argv = [binary, "--headless-auth", "--credentials", creds, "--json", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def post_with_token(url: str, token: str | None) -> tuple[int, str]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": "ping"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as r:
            return r.status, r.headers.get("www-authenticate", "")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("www-authenticate", "")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mcp", required=True)
    ap.add_argument("--device", required=True)
    a = ap.parse_args()
    if not os.path.exists(NODE):
        print(f"oauth-e2e: node not installed at {NODE}: run scripts/install-peers")
        print("oauth-e2e interop: 0 passed, 1 failed")
        return 1
    processes: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            run(a, tmp, processes)
        except Exception as e:  # noqa: BLE001 - a crash is one failure with its message
            check("the test ran to its end", False, f"{type(e).__name__}: {e}")
        finally:
            for p in processes:
                if p.stdin:
                    p.stdin.close()
                p.terminate()
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
    print(f"oauth-e2e interop: {passed} passed, {failed} failed", flush=True)
    return 0 if failed == 0 else 1


def run(a: argparse.Namespace, tmp: str, processes: list[subprocess.Popen]) -> None:
    auth_server, issuer = start_as()
    processes.append(auth_server)
    device, url = start_device(a.device, issuer)
    processes.append(device)
    print(f"oauth-e2e: authorization server {issuer}, device {url}", flush=True)
    creds = os.path.join(tmp, "credentials.json")

    status, challenge = post_with_token(url, None)
    check("no token: 401 with the resource metadata named", status == 401 and "resource_metadata=" in challenge,
          (status, challenge))

    login = mcp(a.mcp, creds, "login", url)
    check("mcp login exits 0", login.returncode == 0, login.stderr[-500:])
    said = json.loads(login.stdout.strip().splitlines()[-1]) if login.stdout.strip() else {}
    check("mcp login reports the issuer and the scope", said.get("issuer") == issuer and SCOPE in (said.get("scope") or ""),
          said)
    s = stats(issuer)
    check("one registration, one authorization, one code grant",
          (s["registrations"], s["authorizations"], s["codeGrants"]) == (1, 1, 1), s)
    check(f"the authorization asked for the scope the resource supports ({SCOPE})", SCOPE in " ".join(s["scopes"]), s)
    mode = stat.S_IMODE(os.stat(creds).st_mode) if os.path.exists(creds) else None
    check("the credentials file is the user's only (0600)", mode == 0o600, oct(mode or 0))
    kept = json.load(open(creds)) if os.path.exists(creds) else {}
    check("the registration and the tokens are kept", issuer in kept.get("registrations", {})
          and url in kept.get("tokens", {}), list(kept))

    for era in ("legacy", "modern"):
        call = mcp(a.mcp, creds, "--era", era, "call", url, "echo", "message=hi")
        check(f"{era}: a call with the kept token", call.returncode == 0 and "hi" in call.stdout,
              (call.returncode, call.stdout[-300:], call.stderr[-300:]))
    s = stats(issuer)
    check("the kept token was used: no new registration or authorization",
          (s["registrations"], s["authorizations"]) == (1, 1), s)

    time.sleep(TTL_S + 1.5)
    call = mcp(a.mcp, creds, "call", url, "echo", "message=again")
    check("after the token expired: the call succeeds", call.returncode == 0 and "again" in call.stdout,
          (call.returncode, call.stdout[-300:], call.stderr[-300:]))
    s = stats(issuer)
    check("refreshed: one refresh grant, no new authorization", (s["refreshGrants"], s["authorizations"]) == (1, 1), s)

    # The server now needs a scope the token lacks: 403 insufficient_scope, and the client steps up.
    device.terminate()
    device.wait(timeout=5)
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    device, url = start_device(a.device, issuer, port, (SCOPE, "mcp:write"))
    processes.append(device)
    call = mcp(a.mcp, creds, "call", url, "echo", "message=more")
    check("step-up: the call needing mcp:write succeeds", call.returncode == 0 and "more" in call.stdout,
          (call.returncode, call.stdout[-300:], call.stderr[-300:]))
    s = stats(issuer)
    check("step-up: one more authorization, for both scopes",
          s["authorizations"] == 2 and set(s["scopes"][-1].split()) >= {SCOPE, "mcp:write"}, s)

    # A token issued for another resource is refused by the first device.
    other, other_url = start_device(a.device, issuer)
    processes.append(other)
    creds2 = os.path.join(tmp, "other.json")
    login2 = mcp(a.mcp, creds2, "login", other_url)
    check("a second device: signed in", login2.returncode == 0, login2.stderr[-300:])
    tokens2 = json.load(open(creds2)).get("tokens", {}) if os.path.exists(creds2) else {}
    foreign = (tokens2.get(other_url) or {}).get("access_token")
    status, challenge = post_with_token(url, foreign)
    check("a token for another resource: 401 invalid_token", status == 401 and "invalid_token" in challenge,
          (status, challenge))
    status, challenge = post_with_token(url, "not.a.jwt")
    check("a malformed token: 401 invalid_token", status == 401 and "invalid_token" in challenge, (status, challenge))

    dpop(a, tmp, processes)

    # The authorization server gone: a client without tokens fails cleanly, in bounded time.
    auth_server.terminate()
    auth_server.wait(timeout=5)
    started = time.monotonic()
    lost = mcp(a.mcp, os.path.join(tmp, "empty.json"), "call", url, "echo", "message=x", timeout=90)
    took = time.monotonic() - started
    check("no authorization server: the call fails with a message", lost.returncode != 0 and lost.stderr.strip() != "",
          (lost.returncode, lost.stderr[-300:]))
    check("... in bounded time (< 60 s)", took < 60, f"{took:.1f} s")


def dpop(a: argparse.Namespace, tmp: str, processes: list[subprocess.Popen]) -> None:
    """DPoP-bound tokens from an authorization server that binds them, checked by the device."""
    auth_server, issuer = start_as("--dpop")
    processes.append(auth_server)
    device, url = start_device(a.device, issuer)
    processes.append(device)
    creds = os.path.join(tmp, "dpop.json")
    login = mcp(a.mcp, creds, "login", url)
    check("dpop: mcp login exits 0", login.returncode == 0, login.stderr[-500:])
    kept = json.load(open(creds)) if os.path.exists(creds) else {}
    tokens = kept.get("tokens", {}).get(url) or {}
    check("dpop: a token bound to a key, and the key kept", bool(tokens.get("dpop_jkt")) and bool(kept.get("dpop_key")),
          {k: bool(v) for k, v in tokens.items()})
    check("dpop: the grant carried a proof", stats(issuer)["dpopGrants"] == 1, stats(issuer))
    for era in ("legacy", "modern"):
        call = mcp(a.mcp, creds, "--era", era, "call", url, "echo", "message=bound")
        check(f"dpop, {era}: a call proves the kept token with the kept key", call.returncode == 0 and "bound" in call.stdout,
              (call.returncode, call.stdout[-300:], call.stderr[-300:]))
    check("dpop: no new authorization", stats(issuer)["authorizations"] == 1, stats(issuer))
    status, challenge = post_with_token(url, tokens.get("access_token"))
    check("dpop: the bound token as a bearer token: 401 invalid_token", status == 401 and "invalid_token" in challenge,
          (status, challenge))
    time.sleep(TTL_S + 1.5)
    call = mcp(a.mcp, creds, "call", url, "echo", "message=refreshed")
    s = stats(issuer)
    check("dpop: after expiry, refreshed with a proof and the call succeeds",
          call.returncode == 0 and "refreshed" in call.stdout and (s["refreshGrants"], s["dpopGrants"]) == (1, 2),
          (call.returncode, call.stderr[-300:], s))


if __name__ == "__main__":
    sys.exit(main())
