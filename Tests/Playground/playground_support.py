"""Starts marbleplay for the playground's end-to-end and load tests, and finds the browser the
browser tests (these and Tests/Attachments) drive."""
import os
import re
import shutil
import subprocess
import sys
import time


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no chromium on PATH: make playground-deps installs Debian's chromium package")


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
