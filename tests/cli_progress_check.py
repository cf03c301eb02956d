#!/usr/bin/env python3
"""Runs a command twice and checks its progress line: with stderr on a pseudo-terminal the line
("frame K of N, F frames/s") must appear there; with stderr on a pipe it must not. stdout goes
to a pipe both times and must never hold the progress line.

usage: cli_progress_check.py COMMAND ARGS...      (standard library only: pty, subprocess)
"""
import os
import pty
import re
import subprocess
import sys

PROGRESS = re.compile(rb"frame \d+ of (\d+), [0-9.]+ frames/s")


def run_on_pty(cmd):
    """(exit status, stdout bytes, terminal bytes) with stderr on a pseudo-terminal."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not chunk:
            break
        tty += chunk
    out = proc.stdout.read()
    rc = proc.wait()
    os.close(master)
    return rc, out, tty


def main():
    cmd = sys.argv[1:]
    rc, out, tty = run_on_pty(cmd)
    if rc != 0:
        sys.exit(f"exit status {rc} on a terminal: {tty!r}")
    found = PROGRESS.findall(tty)
    if not found:
        sys.exit(f"no progress line on the terminal: {tty!r}")
    if PROGRESS.search(out):
        sys.exit("the progress line went to stdout")
    last = tty.rstrip().split(b"\r")[-1]
    total = found[-1].decode()
    if not re.search(rb"frame " + total.encode() + rb" of " + total.encode(), last):
        sys.exit(f"the last progress line does not say every frame is done: {last!r}")
    piped = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True)
    if piped.returncode != 0:
        sys.exit(f"exit status {piped.returncode} with stderr on a pipe")
    if PROGRESS.search(piped.stderr) or b"\r" in piped.stderr:
        sys.exit(f"a progress line on a pipe: {piped.stderr!r}")
    if piped.stdout != out:
        sys.exit("stdout differs between the two runs")
    print(f"progress on the terminal ({len(found)} draws, last {last.decode(errors='replace')!r}), none on a pipe")


if __name__ == "__main__":
    main()
