# SPDX-License-Identifier: GPL-2.0
"""A CPU load beside the measured CPU, for the loaded studies (tools/validate-coverage.py's
COVERAGE_LOAD, tools/bench-precision.py's PRECISION_LOAD): stress-ng's CPU workers (Debian's
stress-ng, which the Makefile installs) pinned to CPUs other than the one tracebench measures
on, in a session of their own, so that stopping them ends every worker."""
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time


def other_cpus():
    """The CPUs we may run on other than the measured one (cpus = auto: the last of them)."""
    return sorted(os.sched_getaffinity(0))[:-1]


def missing():
    """Why no load can be made here (stress-ng not installed), or None."""
    return None if shutil.which("stress-ng") else "stress-ng is not installed (make deps)"


def start(n, cpus, who):
    """n stress-ng CPU workers pinned to the first n of cpus (None for n = 0); who names the
    caller in the error that ends it when stress-ng exits at once."""
    if not n:
        return None
    on = ",".join(str(c) for c in cpus[:n])
    p = subprocess.Popen(["stress-ng", "--cpu", str(n), "--taskset", on, "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    try:
        time.sleep(1)
    except BaseException:  # a signal's exception: the caller never gets p to stop
        stop(p)
        raise
    if p.poll() is not None:
        sys.exit(f"{who}: stress-ng --cpu {n} --taskset {on} exited {p.returncode}")
    return p


def stop(p):
    """The load's whole session killed, and waited for (nothing for None or an ended one)."""
    if p is None or p.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=5)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def running(n, cpus, who):
    """start(n, cpus, who) for the with block, stopped on every way out of it."""
    p = start(n, cpus, who)
    try:
        yield p
    finally:
        stop(p)
