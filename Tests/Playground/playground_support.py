"""Starts marbleplay for the playground's end-to-end and load tests."""
import os
import re
import subprocess
import time


class Playground:
    """A marbleplay process serving `folder`; `url` is the page address with its token."""

    def __init__(self, binary, folder, *extra):
        self.process = subprocess.Popen([binary, folder, *extra], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 30
        self.url = None
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            found = re.search(r"open (http://127\.0\.0\.1:\d+/\?token=\w+)", line)
            if found:
                self.url = found.group(1)
                break
        if not self.url:
            self.process.kill()
            raise SystemExit(f"marbleplay did not print its address (exit {self.process.poll()})")
        self.base, self.token = self.url.split("/?token=")
        self.port = int(self.base.rsplit(":", 1)[1])

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()


def snapshot(folder):
    """Every file under `folder` with its bytes: to prove a request changed nothing."""
    files = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, folder)] = handle.read()
    return files
