#!/usr/bin/env python3
"""Load test of the playground on loopback: CLIENTS concurrent clients render gallery specs
for SECONDS (each on its own keep-alive connection), then malformed requests (oversized
bodies, bad UTF-8, path traversal on save) must get 4xx and leave the disk unchanged.
Prints requests, throughput and latency percentiles; exits 1 on any failed request.

Usage: load.py MARBLEPLAY_BINARY [--clients 50] [--seconds 30]
"""
import argparse
import http.client
import json
import os
import shutil
import sys
import tempfile
import threading
import time

from playground_support import Playground, snapshot


def connect(server):
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)


def call(connection, server, method, path, body=None):
    headers = {"X-Marbles-Token": server.token, "Content-Type": "text/plain; charset=utf-8"}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def client(server, specs, seconds, index, latencies, failures):
    connection = connect(server)
    deadline = time.monotonic() + seconds
    n = index
    while time.monotonic() < deadline:
        name, spec = specs[n % len(specs)]
        n += 1
        started = time.perf_counter()
        try:
            status, body = call(connection, server, "POST", "/api/render?format=svg", spec.encode())
        except (OSError, http.client.HTTPException) as error:
            failures.append(f"{name}: {error!r}")
            connection.close()
            connection = connect(server)
            continue
        latencies.append(time.perf_counter() - started)
        if status != 200 or b"<desc>" not in body:
            failures.append(f"{name}: HTTP {status} {body[:200]!r}")
    connection.close()


def malformed(server, root):
    """Each malformed request and the status range it must get."""
    limit = 256 * 1024
    cases = [
        ("POST", "/api/render", b"a" * (limit + 1), 413),
        ("PUT", "/api/file?path=a.marble", b"a" * (limit + 1), 413),
        ("POST", "/api/render", b"input: -\xff\xfe-|\n", 400),
        ("PUT", "/api/file?path=a.marble", b"\xc3\x28", 400),
        ("PUT", "/api/file?path=..%2Fescaped.marble", b"input: -a-|\n", 403),
        ("PUT", "/api/file?path=%2Ftmp%2Fescaped.marble", b"input: -a-|\n", 403),
        ("PUT", "/api/file?path=sub%2F..%2F..%2Fescaped.marble", b"input: -a-|\n", 403),
        ("PUT", "/api/file?path=.hidden.marble", b"input: -a-|\n", 403),
        ("PUT", "/api/file?path=notes.txt", b"input: -a-|\n", 403),
        ("GET", "/api/file?path=..%2F..%2F..%2Fetc%2Fpasswd", None, 403),
    ]
    before = snapshot(root)
    problems = []
    for method, path, body, expected in cases:
        connection = connect(server)
        try:
            status, _ = call(connection, server, method, path, body)
        except (OSError, http.client.HTTPException) as error:
            status = f"no answer ({error!r})"
        connection.close()
        verdict = "ok" if status == expected else "FAIL"
        if status != expected:
            problems.append(f"{method} {path}: {status}, expected {expected}")
        size = len(body) if body else 0
        print(f"  {verdict}: {method} {path} ({size} bytes) -> {status}")
    # Without the token, with a wrong one.
    for token in ("", "0" * 64):
        connection = connect(server)
        connection.request("PUT", "/api/file?path=a.marble", body=b"x", headers={"X-Marbles-Token": token})
        status = connection.getresponse().status
        connection.close()
        print(f"  {'ok' if status == 403 else 'FAIL'}: PUT without a valid token -> {status}")
        if status != 403:
            problems.append(f"PUT with token {token!r}: {status}, expected 403")
    if snapshot(root) != before:
        problems.append("a malformed request changed files on disk")
    else:
        print("  ok: nothing on disk changed")
    return problems


def percentile(sorted_values, p):
    return sorted_values[min(len(sorted_values) - 1, int(p / 100 * len(sorted_values)))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30)
    options = parser.parse_args()
    root = tempfile.mkdtemp(prefix="marbleplay-load-")
    folder = os.path.join(root, "specs")
    os.makedirs(os.path.join(folder, "sub"))
    with open(os.path.join(folder, "a.marble"), "w") as handle:
        handle.write("input: -a-|\n")
    server = Playground(os.path.abspath(options.binary), folder)
    try:
        connection = connect(server)
        status, body = call(connection, server, "GET", "/api/gallery")
        connection.close()
        if status != 200:
            sys.exit(f"cannot read the gallery: HTTP {status}")
        specs = [(entry["name"], entry["spec"]) for entry in json.loads(body)]
        latencies, failures = [], []
        threads = [threading.Thread(target=client, args=(server, specs, options.seconds, i, latencies, failures)) for i in range(options.clients)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        latencies.sort()
        print(f"{options.clients} clients for {elapsed:.1f} s: {len(latencies)} renders of {len(specs)} gallery specs, "
              f"{len(latencies) / elapsed:.0f}/s, {len(failures)} failed")
        if latencies:
            ms = lambda p: percentile(latencies, p) * 1000
            print(f"latency ms: p50 {ms(50):.1f}, p90 {ms(90):.1f}, p99 {ms(99):.1f}, max {latencies[-1] * 1000:.1f}")
        for failure in failures[:10]:
            print("  failed:", failure)
        print("malformed requests:")
        problems = malformed(server, root)
        alive = server.process.poll() is None
        print(f"  {'ok' if alive else 'FAIL'}: the server is still running")
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
    if failures or problems or not alive or not latencies:
        for problem in problems:
            print("FAIL:", problem)
        sys.exit(1)
    print("playground load test passed")


if __name__ == "__main__":
    main()
