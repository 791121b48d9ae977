#!/usr/bin/env python3
"""Pastes N characters into the product search of a live shop in a pty and times the answer.

    scripts/bench-search-paste.py BINARY N RUNS [--database URL]

For each run: a fresh data directory, `BINARY run` at 80x24 in a pty (pyte as the terminal), `/` pressed,
then N characters written at once, as a terminal sends a paste, then Enter. Printed per run: the time from
the paste's first byte until the screen shows the list's footer again after Enter ("next key drawn"), and
the shop's CPU time. Needs pyte (pip install pyte).
"""
import os
import resource
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shop_in_pty import start_shop  # noqa: E402

binary, count, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
database = sys.argv[sys.argv.index("--database") + 1] if "--database" in sys.argv else None


def run_once():
    shop = start_shop(binary, database)
    pid, fd, screen, stream, home = shop.pid, shop.fd, shop.screen, shop.stream, shop.home

    pump_until = shop.pump_until

    pump_until(lambda text: "q quit" in text)
    os.write(fd, b"/")
    pump_until(lambda text: "Enter done" in text.splitlines()[-1])
    paste = ("mug" + "x" * count)[:count].encode()
    started = time.monotonic()
    answered = pump_until(lambda text: "/ search" in text.splitlines()[-1], writing=paste + b"\r")
    os.write(fd, b"q")
    os.waitpid(pid, 0)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.close(fd)
    shutil.rmtree(home, ignore_errors=True)
    return answered - started, usage


previous = resource.getrusage(resource.RUSAGE_CHILDREN)
for run in range(runs):
    elapsed, usage = run_once()
    cpu = (usage.ru_utime + usage.ru_stime) - (previous.ru_utime + previous.ru_stime)
    previous = usage
    print(f"run {run + 1}: {count} characters pasted, next key drawn after {elapsed * 1000:.1f} ms; the session's CPU {cpu * 1000:.0f} ms", flush=True)
