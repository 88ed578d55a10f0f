#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Precision per minute (make bench-precision, METHODOLOGY.md section 9).

One invocation, the same question asked two ways for the same wall time: what does a
pid-filtered syscalls:sys_enter_getpid tracepoint cost a getpid loop?

  1. tracebench run scenarios/precision.ini --max-time 60s (start to result, timed);
  2. hyperfine -N of tb-getpid-loop without and with the tracepoint (the target enables it in a
     tracefs instance of ours, filtered to its own pid, and disables it on every path), as many
     runs as fit in tracebench's wall time.

Prints each tool's estimate of the overhead, its 95% half-width in percentage points, the ratio
of half-widths and the wall times. A benchmark: it exits 0 when both tools ran (1 when one
could not run, 2 on bad usage). On a shared machine run it under the machine's run lock
(`flock /run/tracebench/lock make bench-precision`: tracebench adopts a lock its parent holds).

Environment: TB_BIN (tracebench), TB_TOOLS (the directory of tb-getpid-loop, tb-usercall-loop
and tb-bpf-arm; TB_LOOP names the getpid loop alone), TB_HELPERS (the LTTng-UST provider's
directory), PRECISION_TIME (default 60s), PRECISION_RUN_MS (hyperfine's run length, default
200), PRECISION_SCENARIO, PRECISION_OUT (the families' runs' directory, kept; default a new one
under /tmp), PRECISION_HYPERFINE=0 (the families without hyperfine), PRECISION_JSON (a file for
the families' figures, both tools'), PRECISION_LOAD=N (families only: N stress-ng CPU workers
pinned to CPUs other than the measured one for both tools' runs, tools/loadgen.py; the goal
line is then issue 32's for a busy machine).

PRECISION_FAMILIES=1 (or =ftrace-event,bpf-tp_btf,... for a subset) asks instead what the
issue-32 goal asks of every tracer family: one run per family of a scenario that sets only
`precision = 0.1%` and `max-time` (every other key at its default, so the run chooses its
sample length and settle: settings.sample_length), on getpid or, for the user-space probes,
usercall; per family the estimate, its 95% half-width in points and as a share of the
traced/baseline ratio, the share of the run's wall time (result.json's started to finished,
whole seconds: without the wait for the run lock) measuring, the rounds and the chosen sample
length, and how often the workload was preempted on its CPU (involuntary context switches a
second of batch, medians over each cell's samples in its statistics). Then, after each
family's run, hyperfine asks that family's question for as many runs as fit in that run's wall
time (sized from one untimed run of each command, the setup and the
cleanup), and a second table gives per family hyperfine's
estimate, its 95% half-width (its +- x 1.96), a Welch interval on its run times and the ratio
hyperfine / tracebench of the half-widths. How each family is asked (one process per run, the
loop pinned to the CPU tracebench measures on, baseline runs of PRECISION_RUN_MS, shortened
where fewer than hyperfine's least 10 runs of each command would fit, as for a uprobe's trap):

  ftrace-event   tb-getpid-loop --trace: the target enables syscalls:sys_enter_getpid for its
                 own pid in an instance of ours (the default mode's question)
  ftrace-uprobe  tb-usercall-loop --trace: the same with a uprobe event defined as tracebench's
                 ftrace-uprobe defines it (tb_usercall_target's entry, a=%di b=%si), named
                 tracebench/tb_<pid>_hyperfine so that `tracebench cleanup` knows it
  bpf-tp_btf,    hyperfine --setup runs tb-bpf-arm (tools/bpf-arm.c): tracebench's own program
  bpf-uprobe     (syscall-count's tp_btf, probe's count body as a uprobe on tb_usercall_target)
                 from the same skeleton, with the rearmable pid filter, loaded, attached and
                 pinned in a BPF file system mounted for the run; each timed run points the
                 filter at itself (--bpf) and back; --cleanup unpins. Debian 12's bpftool cannot
                 attach these programs nor set .rodata, and its bpftrace has no tp_btf
  perf-count     perf stat -e syscalls:sys_enter_getpid -- the loop: perf starts the loop, so
                 perf's own start and end are inside every traced run, as for any perf user
  perf-sample    perf record -e cpu-clock -F 99 --no-buildid --no-bpf-event -o - -- the loop
                 (records into hyperfine's /dev/null through a pipe: -o /dev/null risks perf's
                 rename of an existing output to .old; neither a build-id pass nor the BPF
                 programs' events, which tracebench makes neither of and whose synthesis reads
                 every BPF program loaded on the machine at each start)
  lttng-ust      --setup makes a session like tracebench's (512K x 4 sub-buffers,
                 tracebench:usercall) and starts it, --cleanup destroys it; the loop is
                 tb-usercall-loop --lttng for both commands (the provider loaded as the workload
                 loads it), and a session daemon runs for both (a running one, else ours). No pid
                 tracker: no run's pid is known before it starts, and only the loop has the event
  bpftrace       --setup starts bpftrace /usr/sbin/syscount.bt in the background and waits
                 until it is attached, --cleanup stops it: system-wide, as tracebench's command
                 tracer runs it. Not `bpftrace -c LOOP`: that times bpftrace's own start (seconds
                 of compiling and attaching) in every run, not what the tracer costs the loop

Where a command has a --setup (hyperfine 1.15 has one for all commands) the baseline runs in a
hyperfine invocation of its own first, with no tracer present, as tracebench's baseline cell
has none; otherwise one invocation times both. Everything made for hyperfine is undone on every
path, signals included: the instance, the uprobe event, the pins and the BPF file system, the
LTTng session and our session daemon, bpftrace (hyperfine runs in a process group of its own,
ended with all it started). tracebench's machine lock (what `run --wait` takes) is held over
both tools' runs of every family, so that no other user's run measures beside them; our
tracebench runs inherit it. Exit: 0 when every family gave both tools' figures, 1 when one
did not (said), 130 on a signal.
"""
import contextlib
import datetime
import fcntl
import json
import math
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import loadgen

HERE = os.path.dirname(os.path.abspath(__file__))
TB = os.environ.get("TB_BIN", os.path.join(HERE, "..", "tracebench"))
TOOLS = os.environ.get("TB_TOOLS", os.path.join(HERE, "..", "build", "tools"))
LOOP = os.environ.get("TB_LOOP", os.path.join(TOOLS, "tb-getpid-loop"))
ULOOP = os.path.join(TOOLS, "tb-usercall-loop")
ARM = os.path.join(TOOLS, "tb-bpf-arm")
TRACEFS = "/sys/kernel/tracing"
MACHINE_LOCK = "/run/tracebench/lock"
os.environ.setdefault("TB_HELPERS", os.path.join(HERE, "..", "build", "helpers"))
SCENARIO = os.environ.get("PRECISION_SCENARIO", os.path.join(HERE, "..", "scenarios",
                                                              "precision.ini"))
BUDGET = os.environ.get("PRECISION_TIME", "60s")
# issue 32's goals: on a quiet machine every family, under load the ftrace event's and BPF's
GOAL_QUIET, GOAL_LOADED = 0.3, 1.0
LOADED_FAMILIES = ("ftrace-event", "bpf-tp_btf", "bpf-uprobe")
RUN_MS = int(os.environ.get("PRECISION_RUN_MS", "200"))
Z95 = 1.959964


def t95(df):
    """Two-sided 95% Student t quantile (Cornish-Fisher; within 1e-3 for df >= 5)."""
    if not math.isfinite(df) or df > 1e6:
        return Z95
    z = Z95
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2) +
            (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else float("nan")


def run_tracebench(out):
    cmd = [TB, "run", SCENARIO, "--max-time", BUDGET, "-o", out, "--no-plots", "-q", "--wait"]
    print("tracebench:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    held = () if MachineLock.fd is None else (MachineLock.fd,)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, pass_fds=held)
    try:
        p.wait()
    except BaseException as e:
        # Our signal (a Ctrl-C reached it too; a second one only hurries its teardown), then
        # its own undoing, to the end: a kill here would leave what it armed armed.
        if p.poll() is None:
            p.send_signal(e.args[0] if isinstance(e, Interrupted) else signal.SIGTERM)
        p.wait()
        raise
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"bench-precision: tracebench exited {p.returncode}")
    r = json.load(open(os.path.join(out, "result.json")))
    base = next(c for c in r["cells"] if c["baseline"])
    tr = next(c for c in r["cells"] if not c["baseline"])
    o = tr["overhead"]
    meas = sum(s["elapsed_ns"] or 0 for c in r["cells"] for s in c["samples"]) / 1e9
    setup = [s["tracer_setup_s"] for s in tr["samples"] if s.get("tracer_setup_s") is not None]
    tear = [s["tracer_teardown_s"] for s in tr["samples"] if s.get("tracer_teardown_s") is not None]
    rounds = max((s["round"] for s in tr["samples"]), default=-1) + 1
    # the workload's involuntary context switches per second of its batches: what preempted it
    # on its CPU (another task, or the harness itself; METHODOLOGY.md 2.5)
    # over the samples the statistics take: not a warm-up, a failed one, a contended round's
    # first try (rerun) or an accounting sample (BPF stats on)
    preempt = [[s["involuntary_ctxsw"] / (s["elapsed_ns"] / 1e9) for s in c["samples"]
                if not (s.get("warmup") or s.get("failed") or s.get("rerun")
                        or s.get("accounting")) and s.get("elapsed_ns")
                and isinstance(s.get("involuntary_ctxsw"), (int, float))] for c in (base, tr)]
    # The run's own wall time, started (after the run lock) to finished: on a shared machine
    # the command's time also holds its wait for the lock (--wait), which hyperfine must not get.
    try:
        t0, t1 = (datetime.datetime.strptime(r[k], "%Y-%m-%dT%H:%M:%SZ")
                  for k in ("started", "finished"))
        wall = min(wall, max((t1 - t0).total_seconds(), 1.0))
    except (KeyError, TypeError, ValueError):
        pass
    return {
        "wall": wall, "pct": o["pct"], "lo": o["ci"][0], "hi": o["ci"][1],
        "base_ns": base["summary"]["median"], "tr_ns": tr["summary"]["median"],
        "base_cv": base["summary"]["cv"], "tr_cv": tr["summary"]["cv"],
        "rounds": rounds, "stop": r.get("stop_reason"), "measured_s": meas,
        "setup_ms": 1e3 * median(setup), "teardown_ms": 1e3 * median(tear),
        "verdict": o.get("verdict"), "cpus": r["settings"].get("cpus"),
        "preempt_base_hz": median(preempt[0]), "preempt_tr_hz": median(preempt[1]),
    }


def pin_cpu():
    """The CPU tracebench's cpus = auto picks: the last one we may run on."""
    return max(os.sched_getaffinity(0))


def run_hyperfine(tb, out, inst):
    cpu = str(pin_cpu())
    iters = int(subprocess.check_output([LOOP, "--cpu", cpu, "--calibrate", str(RUN_MS)]))
    # Size the runs from tracebench's own per-op figures so both tools get the same time:
    # a run is iters ops plus ~6 ms of process start and tracepoint switching, and each run's
    # --prepare (a process, and an RCU grace period after a traced run) ~60 ms more per pair.
    per_pair = iters * (tb["base_ns"] + tb["tr_ns"]) / 1e9 + 0.07
    runs = max(10, int((tb["wall"] - 2 * RUN_MS / 1e3) / per_pair))
    js = os.path.join(out, "hyperfine.json")
    # --prepare once per command, untimed: the traced runs' pid list is emptied between runs
    # (an RCU grace period the traced run would otherwise pay inside its timing).
    cmd = ["hyperfine", "-N", "--style", "basic", "--warmup", "1", "--runs", str(runs),
           "--export-json", js, "--prepare", f"{LOOP} --clear {inst}",
           "--prepare", f"{LOOP} --clear {inst}", f"{LOOP} --cpu {cpu} {iters}",
           f"{LOOP} --cpu {cpu} --trace {inst} {iters}"]
    print("hyperfine:", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    if p.returncode:
        sys.exit(f"bench-precision: hyperfine exited {p.returncode}")
    res = json.load(open(js))["results"]
    return dict(hf_figures(res[0], res[1], iters), wall=wall, runs=runs)


def hf_figures(a, b, iters):
    """hyperfine's estimate and half-widths from its JSON results a (baseline), b (traced)."""
    ma, sa, na = a["mean"], a["stddev"], len(a["times"])
    mb, sb, nb = b["mean"], b["stddev"], len(b["times"])
    r = mb / ma
    # hyperfine's own "x.xx +- y.yy times faster": the two stddevs propagated (1 sigma).
    rel_sd = r * math.sqrt((sa / ma) ** 2 + (sb / mb) ** 2)
    # Welch on the raw run times: the standard errors of both means, Welch-Satterthwaite df.
    va, vb = (sa / ma) ** 2 / na, (sb / mb) ** 2 / nb
    df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
    welch = t95(df) * r * math.sqrt(va + vb)
    return {
        "iters": iters, "pct": 100 * (r - 1),
        "hf_half": 100 * Z95 * rel_sd, "hf_sd": 100 * rel_sd, "welch_half": 100 * welch,
        "base_ns": 1e9 * ma / iters, "tr_ns": 1e9 * mb / iters,
    }


# Issue 32's families: (name, workload section, tracer section), each run alone.
FAMILIES = [
    ("ftrace-event", "type = getpid",
     "type = ftrace-events\nevents = syscalls:sys_enter_getpid"),
    ("bpf-tp_btf", "type = getpid", "type = bpf\nprogram = syscall-count\nattach = tp_btf"),
    ("bpf-uprobe", "type = usercall", "type = bpf\nprogram = probe\nattach = uprobe"),
    ("ftrace-uprobe", "type = usercall", "type = ftrace-uprobe"),
    ("perf-count", "type = getpid", "type = perf-count\nevents = syscalls:sys_enter_getpid"),
    ("perf-sample", "type = getpid", "type = perf-sample"),
    ("lttng-ust", "type = usercall\nlttng = true", "type = lttng-ust"),
    ("bpftrace", "type = getpid",
     "type = command\ncommand = /usr/sbin/syscount.bt\nready = Hit Ctrl-C to end\n"
     "hooks = raw_syscalls:sys_enter"),
]


def run_family(name, wl, tr, out):
    """One family's run of a precision-and-max-time-only scenario; its figures."""
    scn = os.path.join(out, f"{name}.ini")
    with open(scn, "w") as f:
        f.write(f"[global]\nprecision = 0.1%\nmax-time = {BUDGET}\n\n[workload w]\n{wl}\n\n"
                f"[tracer t]\n{tr}\n\n[matrix]\nworkloads = w\ntracers = none, t\n")
    global SCENARIO
    SCENARIO = scn
    tb = run_tracebench(os.path.join(out, name))
    r = json.load(open(os.path.join(out, name, "result.json")))
    tb["length"] = r["settings"].get("sample_length") or "(the scenario's)"
    tb["duration_s"] = r["settings"]["duration_ns"] / 1e9
    return tb


# ---- hyperfine at equal time, per family ------------------------------------------------------
# Each family's question asked as a hyperfine user asks it: one process per timing, the tracer
# switched on by the timed command itself (the ftrace event and uprobe, the BPF programs' pid
# filter, perf stat, perf record) or, where it must outlive a run, made by hyperfine's --setup
# and undone by its --cleanup (the BPF programs, the LTTng session, bpftrace). Where --setup is
# used the baseline runs in a hyperfine invocation of its own first, so that it runs with no
# tracer at all, as tracebench's baseline cell does (hyperfine 1.15 has one --setup for every
# command: a BPF program or a uprobe left attached would run on the baseline's ops too).

class Interrupted(BaseException):
    """A signal: everything of ours is undone on the way out."""


def on_signal(sig, _frame):
    raise Interrupted(sig)


def hf_ready():
    for exe in (TB, LOOP, ULOOP, ARM):
        if not os.access(exe, os.X_OK):
            print(f"bench-precision: {exe}: not built (make bench-precision builds it)",
                  file=sys.stderr)
            return False
    for tool in ("hyperfine", "perf", "lttng", "lttng-sessiond", "bpftrace", "mount"):
        if not shutil.which(tool):
            print(f"bench-precision: {tool} is not installed (make deps); PRECISION_HYPERFINE=0 "
                  "runs the families without hyperfine", file=sys.stderr)
            return False
    return True


def stop_group(p, grace=10.0):
    """End p, the leader of a session of its own, and all its group: TERM, then KILL."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        t0 = time.monotonic()
        while time.monotonic() - t0 < grace:
            p.poll()
            try:
                os.killpg(p.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


def group_run(argv, **kw):
    """argv in a session of its own, so that a signal to us ends it and all it started (a
    bpftrace that hyperfine's --setup left running) after whatever it undoes itself."""
    p = subprocess.Popen(argv, start_new_session=True, **kw)
    try:
        p.wait()
    finally:
        stop_group(p)
    return p.returncode


def quiet(cmd):
    """A setup or cleanup step of ours; its exit status (its output into the void)."""
    return subprocess.run(shlex.split(cmd), stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode


class MachineLock:
    """tracebench's machine lock (what `run --wait` takes), held over every family's runs, both
    tools', so that no other user's run measures beside them; our tracebench runs inherit it
    (pass_fds: tracebench adopts a lock its parent holds, host/armed.c) rather than queue for it
    between a family's two halves."""
    fd = None

    def __enter__(self):
        os.makedirs(os.path.dirname(MACHINE_LOCK), exist_ok=True)
        self.fd = os.open(MACHINE_LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        held = self.inherited()
        if held is not None:
            # A wrapper's (`flock /run/tracebench/lock make ...`): ours to measure under.
            os.close(self.fd)
            self.fd, self.own = held, False
            MachineLock.fd = held
            return self
        self.own = True
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self.fd, 32, 0).decode(errors="replace").strip()
            print(f"bench-precision: waiting for {MACHINE_LOCK} (held by pid {holder})",
                  flush=True)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        os.ftruncate(self.fd, 0)
        os.pwrite(self.fd, f"{os.getpid()}\n".encode(), 0)
        MachineLock.fd = self.fd
        return self

    def __exit__(self, *_):
        MachineLock.fd = None
        if self.own:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)

    def inherited(self):
        """An fd we inherited on the lock file whose open file holds the lock (granted at once
        only to that one), else None."""
        want = os.fstat(self.fd)
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                st = os.fstat(fd)
                if fd == self.fd or (st.st_dev, st.st_ino) != (want.st_dev, want.st_ino):
                    continue
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError:
                continue
        return None


def calibrate(argv):
    return int(subprocess.check_output(argv + ["--calibrate", str(RUN_MS)]))


def hf_plan(name, out, undo):
    """The family's hyperfine commands; what they need around them is made now and its undoing
    pushed on undo (run in reverse, on every path). Returns base, traced, prepare (both commands',
    untimed), setup and cleanup (the traced command's), iters and how (for the table)."""
    cpu, tag = str(pin_cpu()), f"tracebench-{os.getpid()}-hyperfine"
    loop, uloop = [LOOP, "--cpu", cpu], [ULOOP, "--cpu", cpu]
    p = {"prepare": None, "setup": None, "cleanup": None}
    if name in ("ftrace-event", "ftrace-uprobe"):
        # An instance of ours around all runs (tracebench cleanup knows its name), with
        # tracebench's default 2 MB per CPU (buffer-size = auto, overwrite on).
        if subprocess.run([LOOP, "--create", tag]).returncode:
            raise OSError(f"cannot create the tracefs instance {tag}")
        undo.append(lambda: quiet(f"{LOOP} --remove {tag}"))
        with open(f"{TRACEFS}/instances/{tag}/buffer_size_kb", "w") as f:
            f.write("2048")
        p["prepare"] = f"{LOOP} --clear {tag}"
    if name == "ftrace-event":
        p.update(base=loop, traced=loop + ["--trace", tag], how="tb-getpid-loop --trace: the "
                 "target enables syscalls:sys_enter_getpid for its own pid in an instance")
    elif name == "ftrace-uprobe":
        # tracebench's event: ftrace-uprobe's default fetch (a, b) at tb_usercall_target's entry
        # (tracebench/tb_<pid>_...: `tracebench cleanup` removes it when we die).
        ev = f"tb_{os.getpid()}_hyperfine"
        off = subprocess.check_output([ULOOP, "--offset"], text=True).strip()
        path = os.path.realpath(ULOOP)
        uprobe_events(f"p:tracebench/{ev} {path}:{off} a=%di:s64 b=%si:s64")
        # Under the instance's removal on the stack: the event is busy until that is gone.
        undo.insert(0, lambda: uprobe_events(f"-:tracebench/{ev}"))
        p.update(base=uloop, traced=uloop + ["--trace", tag, f"tracebench/{ev}"],
                 how="tb-usercall-loop --trace: the target enables a uprobe event on "
                 "tb_usercall_target for its own pid in an instance")
    elif name in ("bpf-tp_btf", "bpf-uprobe"):
        # A BPF file system of our own, unmounted at the end: whatever is pinned in it goes.
        mnt = os.path.join(out, "bpffs")
        os.makedirs(mnt, exist_ok=True)
        if subprocess.run(["mount", "-t", "bpf", "bpf", mnt]).returncode:
            raise OSError(f"cannot mount a BPF file system at {mnt}")
        undo.append(lambda: (quiet(f"umount {mnt}"), os.rmdir(mnt)))
        pin = os.path.join(mnt, tag)
        arm = (f"{ARM} syscall-count {pin}" if name == "bpf-tp_btf" else
               f"{ARM} uprobe {pin} {os.path.realpath(ULOOP)} tb_usercall_target")
        base = loop if name == "bpf-tp_btf" else uloop
        p.update(base=base, traced=base + ["--bpf", f"{pin}/bss"], setup=arm,
                 cleanup=f"{ARM} --remove {pin}",
                 how="--setup tb-bpf-arm (tracebench's program, loaded, attached and pinned), "
                 "the target points its pid filter at itself")
    elif name == "perf-count":
        p.update(base=loop, traced=["perf", "stat", "-e", "syscalls:sys_enter_getpid", "-o",
                                    "/dev/null", "--"] + loop,
                 how="perf stat -e syscalls:sys_enter_getpid -- the loop")
    elif name == "perf-sample":
        # tracebench's perf-sample defaults (cpu-clock at 99 Hz); the records to hyperfine's
        # /dev/null through a pipe (-o - : perf renames an existing -o file to .old); neither
        # the build-id pass after the run nor the BPF programs' events synthesized at its start
        # (tracebench makes neither; the second reads every BPF program loaded on the machine,
        # so perf's start would grow with whatever else is loaded).
        p.update(base=loop, traced=["perf", "record", "-q", "--no-buildid", "--no-bpf-event",
                                    "-e", "cpu-clock", "-F", "99", "-o", "-", "--"] + loop,
                 how="perf record -e cpu-clock -F 99 --no-buildid --no-bpf-event -o - -- the "
                 "loop")
    elif name == "lttng-ust":
        lttng_daemon(out, undo)
        sess, tdir = tag, os.path.join(out, "lttng-trace")
        base = uloop + ["--lttng"]
        p.update(base=base, traced=base, setup="sh -c " + shlex.quote(
            f"lttng create {sess} --output={tdir} && lttng enable-channel -u -s {sess} "
            f"--subbuf-size=512K --num-subbuf=4 ch && lttng enable-event -u -s {sess} -c ch "
            f"tracebench:usercall && lttng start {sess}"),
            cleanup="sh -c " + shlex.quote(f"lttng destroy {sess}; rm -rf {tdir}"),
            how="--setup makes an LTTng session (512K x 4 sub-buffers, tracebench:usercall, "
            "no pid tracker: a run's pid is not known before it starts), --cleanup destroys it")
    elif name == "bpftrace":
        log, pidf = os.path.join(out, "bpftrace.log"), os.path.join(out, "bpftrace.pid")
        p.update(base=loop, traced=loop, setup="sh -c " + shlex.quote(
            f"bpftrace /usr/sbin/syscount.bt > {log} 2>&1 & echo $! > {pidf}; i=0; "
            f"until grep -q 'Hit Ctrl-C' {log}; do kill -0 $! && [ $i -lt 600 ] || exit 1; "
            "i=$((i+1)); sleep 0.05; done"),
            cleanup="sh -c " + shlex.quote(
            f"test -s {pidf} || exit 0; p=$(cat {pidf}); kill -INT $p; i=0; "
            "while kill -0 $p 2>/dev/null && [ $i -lt 200 ]; do i=$((i+1)); sleep 0.05; done; "
            f"kill -KILL $p 2>/dev/null; rm -f {pidf}; exit 0"),
            how="--setup starts bpftrace /usr/sbin/syscount.bt (system-wide, as tracebench's "
            "command tracer runs it) and waits until it is attached, --cleanup stops it")
    if p["cleanup"]:
        undo.append(lambda: quiet(p["cleanup"]))
    p["iters"] = calibrate(p["base"])
    return p


def uprobe_events(line):
    """A line appended to uprobe_events (os.write: Python's "a" mode seeks, which it refuses)."""
    fd = os.open(f"{TRACEFS}/uprobe_events", os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, f"{line}\n".encode())
    finally:
        os.close(fd)


def lttng_daemon(out, undo):
    """A session daemon for the LTTng family: a running one, else ours until the end."""
    if quiet("lttng list") == 0:
        return
    with open(os.path.join(out, "sessiond.log"), "w") as log:
        d = subprocess.Popen(["lttng-sessiond", "--no-kernel"], stdout=log, stderr=log,
                             stdin=subprocess.DEVNULL, start_new_session=True)
    undo.append(lambda: stop_group(d))
    for _ in range(200):
        if quiet("lttng list") == 0:
            return
        time.sleep(0.05)
    raise OSError("lttng-sessiond did not come up")


def timed(cmd):
    t0 = time.monotonic()
    if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode:
        raise OSError(f"{' '.join(cmd)} failed")
    return time.monotonic() - t0


def hf_cmd(argv, iters):
    return " ".join(shlex.quote(a) for a in argv + [str(iters)])


def hf_family(name, tb, out):
    """hyperfine's figures for the family, in as much wall time as tracebench's run took."""
    undo = []
    try:
        p = hf_plan(name, out, undo)
        base, traced = hf_cmd(p["base"], p["iters"]), hf_cmd(p["traced"], p["iters"])
        # One run of each (and the setup and cleanup) first, to size the runs so that
        # hyperfine's wall time, warmups included, is tracebench's.
        prep = timed(shlex.split(p["prepare"])) if p["prepare"] else 0.0
        pair = timed(shlex.split(base)) + 2 * prep + 0.01
        fixed = timed(shlex.split(p["setup"])) if p["setup"] else 0.0
        pair += timed(shlex.split(traced))
        fixed += timed(shlex.split(p["cleanup"])) if p["cleanup"] else 0.0
        # hyperfine's least number of runs, 10, and a warmup pair: where a traced run lasts
        # so long that fewer would fit (a uprobe's trap costs microseconds), shorter runs.
        if 11 * pair > tb["wall"] - fixed:
            scale = max(tb["wall"] - fixed, 1.0) / (11 * pair)
            p["iters"] = max(1000, int(p["iters"] * scale))
            base, traced = hf_cmd(p["base"], p["iters"]), hf_cmd(p["traced"], p["iters"])
            pair *= scale
        runs = max(10, int((tb["wall"] - fixed) / pair) - 1)
        js = os.path.join(out, f"{name}-hyperfine")
        t0 = time.monotonic()
        res = hf_invoke(p, base, traced, runs, js)
        wall = time.monotonic() - t0
    finally:
        while undo:
            try:
                undo.pop()()
            except OSError:
                pass
    return dict(hf_figures(res[0], res[1], p["iters"]), wall=wall, runs=runs, how=p["how"])


def hf_invoke(p, base, traced, runs, js):
    """hyperfine's results for base and traced: one invocation, or two when the traced command
    has a --setup (the baseline first, with no tracer at all)."""
    common = ["hyperfine", "-N", "--style", "basic", "--warmup", "1", "--runs", str(runs)]
    prep = ["--prepare", p["prepare"]] if p["prepare"] else []
    if not p["setup"]:
        calls = [(prep * 2 + [base, traced], f"{js}.json")]
    else:
        calls = [(prep + [base], f"{js}-base.json"),
                 (prep + ["--setup", p["setup"], "--cleanup", p["cleanup"], traced],
                  f"{js}-traced.json")]
    res = []
    for args, path in calls:
        cmd = common + ["--export-json", path] + args
        print("hyperfine:", " ".join(shlex.quote(a) for a in cmd), flush=True)
        st = group_run(cmd, stdout=subprocess.DEVNULL)
        if st:
            raise OSError(f"hyperfine exited {st}")
        res += json.load(open(path))["results"]
    return res


def families(which):
    """PRECISION_FAMILIES: every family's run and hyperfine's at equal time, then the tables."""
    names = [f[0] for f in FAMILIES]
    want = names if which == "1" else which.split(",")
    bad = [w for w in want if w not in names]
    if bad:
        print(f"bench-precision: PRECISION_FAMILIES: unknown {bad}; known: {names}",
              file=sys.stderr)
        return 2
    load = os.environ.get("PRECISION_LOAD", "0").strip()
    spare = loadgen.other_cpus()
    if not load.isdigit() or int(load) > len(spare):
        print(f"bench-precision: PRECISION_LOAD={load!r}: want a count of busy CPUs, at most "
              f"{len(spare)} here besides the measured one", file=sys.stderr)
        return 2
    load = int(load)
    if load and loadgen.missing():
        print(f"bench-precision: {loadgen.missing()}", file=sys.stderr)
        return 1
    with_hf = os.environ.get("PRECISION_HYPERFINE", "1") != "0"
    if with_hf and not hf_ready():
        return 1
    out = os.environ.get("PRECISION_OUT") or tempfile.mkdtemp(prefix="tb-precision-families.")
    os.makedirs(out, exist_ok=True)
    rows, hfs = [], {}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    busy = None
    try:
        lock = MachineLock() if with_hf else contextlib.nullcontext()
        with lock:
            if load:
                print(f"load: {load} stress-ng CPU worker(s) on CPUs {spare[:load]}, the "
                      f"measured CPU {pin_cpu()} left alone", flush=True)
                busy = loadgen.start(load, spare, "bench-precision")
            st = run_families(want, out, rows, hfs, with_hf)
    except Interrupted as e:
        print(f"bench-precision: interrupted (signal {e.args[0]}); everything of ours undone",
              file=sys.stderr)
        return 130
    finally:
        loadgen.stop(busy)
    print(f"results: {out}")
    print()
    print(f"{'family':14} {'estimate':>10} {'95% half-width':>15} {'of ratio':>9} "
          f"{'measuring':>9} {'rounds':>6} {'sample':>7}  stop")
    for name, tb in rows:
        print(f"{name:14} {tb['pct']:+9.2f}% {tb_half(tb):12.2f} pt "
              f"{tb_half(tb) / (100 + tb['pct']) * 100:8.2f}% "
              f"{100 * tb['measured_s'] / tb['wall']:8.0f}% {tb['rounds']:6d} "
              f"{tb['duration_s']:6.2f}s  {tb['stop']}")
    print()
    for name, tb in rows:
        print(f"{name}: sample length and settle {tb['length']}")
    for name, tb in rows:
        print(f"{name}: the workload preempted {tb['preempt_base_hz']:.0f} times a second "
              f"(baseline) and {tb['preempt_tr_hz']:.0f} (traced), medians over the samples")
    if load:
        print(f"goal ({load} busy CPU{'s' if load > 1 else ''}): half-width <= {GOAL_LOADED:g}% "
              f"of the ratio for {', '.join(LOADED_FAMILIES)}")
    else:
        print(f"goal (quiet machine): half-width <= {GOAL_QUIET:g}% of the ratio, >= 85% of the "
              "wall time measuring")
    if with_hf:
        hf_table(rows, hfs)
    dump = os.environ.get("PRECISION_JSON")
    if dump:
        with open(dump, "w") as f:
            json.dump({"time": BUDGET, "rows": [
                {"family": n, "tracebench": dict(tb, half=tb_half(tb)), "hyperfine": hfs.get(n)}
                for n, tb in rows]}, f, indent=1)
    return st


def run_families(want, out, rows, hfs, with_hf):
    """Each family's tracebench run, then hyperfine's; 1 when one gave no figures (said)."""
    st = 0
    print(f"load before: {open('/proc/loadavg').read().strip()}", flush=True)
    for name, wl, tr in FAMILIES:
        if name not in want:
            continue
        try:
            rows.append((name, run_family(name, wl, tr, out)))
        except (SystemExit, OSError, KeyError, StopIteration) as e:
            print(f"{name}: no figures: {e}", flush=True)
            st = 1
            continue
        if with_hf:
            try:
                hfs[name] = hf_family(name, rows[-1][1], out)
            except (SystemExit, OSError, KeyError, IndexError, ValueError,
                    subprocess.SubprocessError) as e:
                print(f"{name}: hyperfine: no figures: {e}", flush=True)
                st = 1
    print(f"load after: {open('/proc/loadavg').read().strip()}")
    return st


def tb_half(tb):
    return (tb["hi"] - tb["lo"]) / 2 if tb["lo"] is not None else float("nan")


def hf_table(rows, hfs):
    """The families' hyperfine figures beside tracebench's (the lines above keep their form)."""
    print()
    print("hyperfine at equal time, one process per run (METHODOLOGY.md section 9):")
    print(f"{'family':14} {'estimate':>10} {'95% half-width':>15} {'Welch':>14} "
          f"{'hf/tb':>6} {'runs':>9} {'wall':>7} {'tb wall':>7}")
    met = []
    for name, tb in rows:
        hf = hfs.get(name)
        if not hf:
            print(f"{name:14} (no hyperfine figures)")
            continue
        ratio = hf["hf_half"] / tb_half(tb)
        met.append(ratio >= 10)
        ratio = f"{ratio:5.1f}x" if math.isfinite(ratio) else "     -"
        print(f"{name:14} {hf['pct']:+9.2f}% {hf['hf_half']:12.2f} pt  Welch "
              f"{hf['welch_half']:5.2f} pt {ratio} {hf['runs']:4d}+{hf['runs']:<4d} "
              f"{hf['wall']:6.1f}s {tb['wall']:6.0f}s")
    print()
    for name, _ in rows:
        if hfs.get(name):
            print(f"{name}: hyperfine {hfs[name]['how']}; {hfs[name]['base_ns']:.1f} -> "
                  f"{hfs[name]['tr_ns']:.1f} ns/op over {hfs[name]['iters']} ops per run")
    print(f"goal (quiet machine): >= 10x narrower than hyperfine in the same time: "
          f"{sum(met)} of {len(met)} families")


def main():
    which = os.environ.get("PRECISION_FAMILIES")
    if which:
        return families(which)
    if os.environ.get("PRECISION_LOAD", "0").strip() != "0":
        print("bench-precision: PRECISION_LOAD is for the families mode only (set "
              "PRECISION_FAMILIES)", file=sys.stderr)
        return 2
    if len(sys.argv) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    for exe in (TB, LOOP):
        if not os.access(exe, os.X_OK):
            print(f"bench-precision: {exe}: not built (make all build/tools/tb-getpid-loop)",
                  file=sys.stderr)
            return 1
    if not shutil.which("hyperfine"):
        print("bench-precision: hyperfine is not installed (make deps)", file=sys.stderr)
        return 1
    out = tempfile.mkdtemp(prefix="tb-precision.")
    inst = f"tracebench-{os.getpid()}-hyperfine"
    made = False

    def remove(*_):
        if made:
            subprocess.run([LOOP, "--remove", inst])
        shutil.rmtree(out, ignore_errors=True)
        if _:
            sys.exit(130)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, remove)
    try:
        print(f"load before: {open('/proc/loadavg').read().strip()}", flush=True)
        tb = run_tracebench(os.path.join(out, "tb"))
        if subprocess.run([LOOP, "--create", inst]).returncode:
            return 1
        made = True
        hf = run_hyperfine(tb, out, inst)
        print(f"load after: {open('/proc/loadavg').read().strip()}")
    finally:
        remove()
        made = False
    half = (tb["hi"] - tb["lo"]) / 2 if tb["lo"] is not None else float("nan")
    print()
    print(f"{'':12} {'estimate':>10} {'95% half-width':>15} {'wall':>8}  detail")
    print(f"{'tracebench':12} {tb['pct']:+9.2f}% {half:12.2f} pt {tb['wall']:7.1f}s  "
          f"[{tb['lo']:+.2f}, {tb['hi']:+.2f}], {tb['rounds']} rounds, stop: {tb['stop']}, "
          f"{tb['base_ns']:.1f} -> {tb['tr_ns']:.1f} ns/op, CV {100 * tb['base_cv']:.1f}% / "
          f"{100 * tb['tr_cv']:.1f}%")
    print(f"{'hyperfine':12} {hf['pct']:+9.2f}% {hf['hf_half']:12.2f} pt {hf['wall']:7.1f}s  "
          f"its +-{hf['hf_sd']:.2f} pt (1 sigma) x 1.96, {hf['runs']} runs of {hf['iters']} "
          f"getpid, {hf['base_ns']:.1f} -> {hf['tr_ns']:.1f} ns/op")
    print(f"{'  Welch':12} {hf['pct']:+9.2f}% {hf['welch_half']:12.2f} pt {'':8}  "
          "a 95% interval on hyperfine's raw run times")
    print()
    print(f"tracebench: {tb['measured_s']:.1f} s of {tb['wall']:.1f} s measuring "
          f"({100 * tb['measured_s'] / tb['wall']:.0f}%); per traced sample a median "
          f"{tb['setup_ms']:.1f} ms setup (rearm, start, settle) and {tb['teardown_ms']:.1f} ms "
          "teardown")
    print(f"half-width ratio: hyperfine / tracebench = {hf['hf_half'] / half:.1f}x, "
          f"Welch / tracebench = {hf['welch_half'] / half:.1f}x")
    print(f"goal (<= 1.0 pt in 60 s; >= 10x hyperfine; narrower than Welch): "
          f"{'met' if half <= 1.0 and hf['hf_half'] >= 10 * half and hf['welch_half'] > half else 'not met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
