# tracebench: one entry point for deps, build, tests, demo, install.
#
#   make deps        Debian packages (apt-get, idempotent) + libperf from linux-source into .deps/
#   make             build ./tracebench (V=1 for full commands)
#   make check       every test (builds deps and the binary first); SAN=1 under ASan+UBSan
#   make demo        run scenarios/quick.ini end to end (waits for another run; DEMO_ARGS=...)
#   make install     PREFIX=/usr/local DESTDIR=...
#   make deb         ./tracebench_<version>_<arch>.deb (debhelper; PREFIX=/usr), lintian-checked
#   make man         doc/tracebench.1 from doc/tracebench.1.in and the option tables
#   make asan|ubsan  sanitizer builds (./tracebench-asan, ./tracebench-ubsan)
#   make bench-workloads | bench-estimate | bench-history | validate | validate-history | fuzz
#   make valgrind | format
#   make figures     the figures the documents quote, into doc/figures.json (FIGURES=demo,...)

PREFIX	?= /usr/local
DESTDIR	?=
BINDIR	 = $(PREFIX)/bin
DATADIR	 = $(PREFIX)/share/tracebench
LIBEXECDIR = $(PREFIX)/libexec/tracebench
MANDIR	 = $(PREFIX)/share/man/man1
DOCDIR	 = $(PREFIX)/share/doc/tracebench
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions

DEPS_DIR	?= $(CURDIR)/.deps
LIBPERF_PREFIX	?= $(DEPS_DIR)/libperf

CC	 = gcc
CLANG	?= clang
BPFTOOL	?= bpftool

ifeq ($(V),1)
Q =
msg = @true
else
Q = @
msg = @printf '  %-7s %s\n'
endif

# Debian 12 packages the build, the tests and the demo need. ansible: `tracebench fleet`;
# debhelper, lintian: `make deb` (tests/e2e/t-deb.sh); python3-yaml: t-ci-gate.sh reads doc/ci.md;
# openssh-server: the SSH host of tests/e2e/t-fleet.sh (an sshd of its own in a network namespace;
# installing the package starts Debian's ssh service only where services are started at install).
# nginx-light, redis-server, redis-tools, wrk, nghttp2-client (h2load), postgresql: the service
# workloads' servers and their own load generators (each started by tracebench on loopback).
DEB_PKGS = build-essential pkg-config libtracefs-dev libtraceevent-dev libbpf-dev bpftool clang \
	   llvm libelf-dev zlib1g-dev libgsl-dev libcunit1-dev gnuplot-nox libinih-dev \
	   libjansson-dev libhwloc-dev linux-perf bpftrace xz-utils libclang-rt-14-dev valgrind \
	   python3 libxml2-utils chromium systemtap-sdt-dev lttng-tools liblttng-ust-dev \
	   liblttng-ctl-dev libbabeltrace2-dev libsqlite3-dev sqlite3 libpq-dev postgresql libssl-dev \
	   hyperfine ansible openssh-server bpfcc-tools libdw-dev debhelper lintian python3-yaml \
	   nginx-light redis-server redis-tools wrk nghttp2-client stress-ng

PC_LIBS	= libtracefs libtraceevent libbpf gsl inih jansson hwloc libelf zlib lttng-ctl babeltrace2 \
	  sqlite3 libpq libcrypto libdw

SAN ?=
ifeq ($(SAN),1)
BUILD	 = build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD	 = build
SANFLAGS =
endif

# Recursive (=) so pkg-config runs when a recipe needs it, after `make deps` installed it.
CFLAGS	 ?= -O2 -g
# Frame pointers: the kernel walks user call chains by them, and `run --explain` profiles the
# workload's code (tracebench's own) with kernel and user chains (explain/profile.h).
BASE_CFLAGS = -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
	   -Wshadow -Wformat=2 -Wno-format-nonliteral -D_GNU_SOURCE -MMD -MP \
	   -I$(CURDIR)/harness -I$(CURDIR) -I$(CURDIR)/$(BUILD) -I$(LIBPERF_PREFIX)/include \
	   -DTB_LIBEXECDIR='"$(LIBEXECDIR)"' -DTB_DATADIR='"$(DATADIR)"' \
	   $(shell pkg-config --cflags $(PC_LIBS) 2>/dev/null) $(SANFLAGS)
LIBPERF_LIBS = $(LIBPERF_PREFIX)/lib/libperf.a $(LIBPERF_PREFIX)/lib/libapi.a
LDLIBS	 = $(LIBPERF_LIBS) $(shell pkg-config --libs $(PC_LIBS) 2>/dev/null) -lpthread -lm
# += : the package build's hardening flags (dpkg-buildflags, in the environment) stay.
LDFLAGS	+= $(SANFLAGS)

# Versions of libraries that have no run-time version call, for `tracebench sysinfo`.
pc_version = $(or $(shell PKG_CONFIG_PATH=$(LIBPERF_PREFIX)/lib/pkgconfig pkg-config --modversion $(1) 2>/dev/null),unknown)
SYSINFO_CFLAGS = -DTB_LIBTRACEFS_VERSION='"$(call pc_version,libtracefs)"' \
	   -DTB_LIBTRACEEVENT_VERSION='"$(call pc_version,libtraceevent)"' \
	   -DTB_LIBPERF_VERSION='"$(call pc_version,libperf)"' \
	   -DTB_INIH_VERSION='"$(call pc_version,inih)"' -DTB_HWLOC_VERSION='"$(call pc_version,hwloc)"'
# (BASE_CFLAGS, not CFLAGS: a CFLAGS given on the command line would override a target one)
$(BUILD)/harness/host/sysinfo-tools.o: BASE_CFLAGS += $(SYSINFO_CFLAGS)

# The engine's rooms, one stage each (doc/architecture.md), and the plugins.
ROOMS	 = $(addprefix harness/,core cli parse plan runner model stats history render render/html \
	   render/gnuplot host tracers tracers/bpf explain) workloads
# (tracers/bpf/ also holds the BPF programs, *.bpf.c: clang builds those, below)
SRCS	 = $(sort $(filter-out %.bpf.c,$(foreach d,$(ROOMS),$(wildcard $(d)/*.c))))
HDRS	 = $(sort $(foreach d,$(ROOMS),$(wildcard $(d)/*.h)))
OBJS	 = $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS	 = $(filter-out $(BUILD)/harness/cli/main.o,$(OBJS))
BPF_SRCS = $(wildcard harness/tracers/bpf/*.bpf.c)
# The headers the BPF programs include (bpf-tracer.h is the user side's own).
BPF_HDRS = $(filter-out harness/tracers/bpf/bpf-tracer.h,$(wildcard harness/tracers/bpf/*.h))
BPF_OBJS = $(BPF_SRCS:harness/tracers/bpf/%.bpf.c=$(BUILD)/bpf/%.bpf.o)
SKELS	 = $(BPF_SRCS:harness/tracers/bpf/%.bpf.c=$(BUILD)/bpf/%.skel.h)
HELPER_SRCS = $(wildcard workloads/helpers/*.c)
HELPERS	 = $(HELPER_SRCS:workloads/helpers/%.c=$(BUILD)/helpers/%)
# The usercall workload's LTTng-UST provider: the only thing that links liblttng-ust (its
# constructor starts threads in whatever process loads it; the workload dlopen()s it).
UST_PROVIDER = $(BUILD)/helpers/libtb-usercall-ust.so
TEST_SRCS = $(wildcard tests/lib/*.c tests/unit/*.c)
TEST_OBJS = $(TEST_SRCS:%.c=$(BUILD)/%.o)
# Unit suites include their helpers by name ("tb_test.h", "fixture.h") and the fuzz drivers'
# shared header as "fuzz/drive.h".
$(TEST_OBJS): BASE_CFLAGS += -I$(CURDIR)/tests/lib -I$(CURDIR)/tests
ARCH	 = $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

ifeq ($(SAN),1)
TB_BIN	 = tracebench-san
else
TB_BIN	 = tracebench
endif
TEST_BIN = $(BUILD)/run-tests

.PHONY: need-deps man all deps check test e2e demo install uninstall deb asan ubsan clean distclean \
	bench-workloads bench-estimate bench-history bench-precision bench-services bench-pid-knob bench-rearm bench-noise \
	validate validate-history validate-coverage validate-coverage-loaded validate-accounting validate-sweeps validate-services validate-services-delay figures fuzz \
	fuzzers valgrind format format-check

all: $(TB_BIN) $(HELPERS) $(UST_PROVIDER)

# ---- dependencies --------------------------------------------------------------------------
DEPS_STAMP = $(DEPS_DIR)/.stamp-$(shell echo $(DEB_PKGS) | md5sum | cut -c1-8)

deps: $(DEPS_STAMP) $(LIBPERF_PREFIX)/lib/libperf.a

$(DEPS_STAMP):
	$(Q)missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || \
		echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  APT     $$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get update -qq >/dev/null && \
		apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
		{ echo "make deps: apt-get install failed for: $$missing" >&2; exit 1; }; \
	fi
	$(Q)mkdir -p $(DEPS_DIR) && touch $@

$(LIBPERF_PREFIX)/lib/libperf.a: | $(DEPS_STAMP)
	$(msg) LIBPERF $(LIBPERF_PREFIX)
	$(Q)tools/build-libperf.sh $(LIBPERF_PREFIX) $(DEPS_DIR)/libperf-src

# ---- build ---------------------------------------------------------------------------------
# A fresh clone has no .deps/: say so before compiling anything, instead of a missing header
# half-way through. An order-only prerequisite of everything that compiles, checked each run.
need-deps:
	$(Q)test -f $(LIBPERF_PREFIX)/include/perf/core.h -a -f $(LIBPERF_PREFIX)/lib/libperf.a || \
		{ echo "make: $(LIBPERF_PREFIX) has no libperf: run \`make deps\` first (libperf is built from linux-source into .deps/)" >&2; exit 2; }
	$(Q)pkg-config --exists $(PC_LIBS) || \
		{ echo "make: missing libraries ($$(for l in $(PC_LIBS); do pkg-config --exists $$l || printf '%s ' $$l; done)): run \`make deps\` first" >&2; exit 2; }

$(TB_BIN): $(OBJS)
	$(msg) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c | need-deps $(SKELS)
	@mkdir -p $(dir $@)
	$(msg) CC $<
	$(Q)$(CC) $(BASE_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/vmlinux.h: | need-deps
	@mkdir -p $(dir $@)
	$(msg) BTF $@
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

# The host's multiarch include directory (asm/errno.h, which libbpf's usdt.bpf.h needs): the
# BPF target has none of its own. -print-multiarch, not -dumpmachine: clang's machine is
# x86_64-pc-linux-gnu (make fuzz builds with CC=clang), the directory x86_64-linux-gnu.
BPF_SYS_INCLUDES = -idirafter /usr/include/$(shell $(CLANG) -print-multiarch)

$(BUILD)/bpf/%.bpf.o: harness/tracers/bpf/%.bpf.c $(BUILD)/vmlinux.h $(BPF_HDRS)
	@mkdir -p $(dir $@)
	$(msg) BPF $<
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(BUILD) -Iharness/tracers/bpf \
		$(BPF_SYS_INCLUDES) -Wall -Werror -c $< -o $@

# Keep objects and skeletons: `object = build/bpf/<x>.bpf.o` reuses them, and make would delete
# them as intermediates (then rebuild skeletons and every object on each run).
.SECONDARY: $(BPF_OBJS) $(SKELS)

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(msg) SKEL $@
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

# BPF objects the tests load as a user's own object (bpf tracer, program = object).
TEST_BPF_OBJS = $(patsubst tests/data/%.bpf.c,$(BUILD)/tests/data/%.bpf.o,$(wildcard tests/data/*.bpf.c))

$(BUILD)/tests/data/%.bpf.o: tests/data/%.bpf.c $(BUILD)/vmlinux.h
	@mkdir -p $(dir $@)
	$(msg) BPF $<
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(BUILD) -Wall -Werror -c $< -o $@

# Tiny static helpers (the exec workload's target).
$(BUILD)/helpers/%: workloads/helpers/%.c | need-deps
	@mkdir -p $(dir $@)
	$(msg) HELPER $@
	$(Q)$(CC) -O2 -static -o $@ $<

$(UST_PROVIDER): workloads/helpers/ust/tb-usercall-ust.c workloads/helpers/ust/tb-usercall-tp.h
	@mkdir -p $(dir $@)
	$(msg) HELPER $@
	$(Q)$(CC) $(CPPFLAGS) -O2 -fPIC -shared $(LDFLAGS) -Iworkloads/helpers/ust -o $@ $< \
		$(shell pkg-config --libs lttng-ust 2>/dev/null || echo -llttng-ust) -ldl

# ---- tests ---------------------------------------------------------------------------------
$(TEST_BIN): $(LIBOBJS) $(TEST_OBJS)
	$(msg) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(shell pkg-config --libs cunit)

$(TEST_BIN): | $(TEST_BPF_OBJS) $(BPF_OBJS)
$(BUILD)/tests/unit/tracers-bpf.o: BASE_CFLAGS += -DTB_TEST_BUILD_DIR='"$(CURDIR)/$(BUILD)"'

# Unit suites then end-to-end scripts; both always run, the status says if either failed.
# The unit suites that touch nothing of the machine's (TB_TEST_SUITE_BESIDE: statistics, result
# files, renderers) run meanwhile, at the lowest CPU priority, without the run lock; their log
# follows the scripts'. Ends with what failed, by name, and the unit and e2e totals.
UNIT_ENV = TB_TEST_DATA=$(CURDIR)/tests/data TB_BIN=$(CURDIR)/$(TB_BIN) \
	TB_HELPERS=$(CURDIR)/$(BUILD)/helpers
test: $(TB_BIN) $(HELPERS) $(UST_PROVIDER) $(TEST_BIN)
	@echo "== unit tests ($(TEST_BIN) --machine; --beside runs meanwhile)"
	$(Q)st=0; log=$$(mktemp /tmp/tb-test-XXXXXX.log); \
	{ $(UNIT_ENV) nice -n 19 $(TEST_BIN) --beside >"$$log.beside" 2>&1 || \
		echo "unit: the --beside runner exited $$? (a sanitizer report in its log, if every test passed)" \
		>"$$log.st2"; } & bpid=$$!; \
	{ $(UNIT_ENV) $(TEST_BIN) --machine || \
		echo "unit: the runner exited $$? (a sanitizer report above, if every test passed)" \
		>"$$log.st"; } | tee "$$log"; \
	echo "== end-to-end tests (tests/e2e)"; \
	{ TB_BIN=$(CURDIR)/$(TB_BIN) TB_HELPERS=$(CURDIR)/$(BUILD)/helpers \
		tests/e2e/run.sh || echo "e2e: the scripts exited $$?" >>"$$log.st"; } | tee -a "$$log"; \
	wait $$bpid; echo "== unit tests beside the others ($(TEST_BIN) --beside)"; \
	tee -a "$$log" <"$$log.beside"; [ -e "$$log.st2" ] && cat "$$log.st2" >>"$$log.st"; \
	echo "== summary"; grep -E '^(unit|e2e): ' "$$log" | grep -v -E '^e2e: (PASS|SKIP)'; \
	[ -e "$$log.st" ] && { st=1; cat "$$log.st"; }; \
	[ "$$(grep -c -E '^unit: [0-9]+ tests run' "$$log")" = 2 ] || \
		{ echo "unit: a runner ended early"; st=1; }; \
	rm -f "$$log" "$$log.st" "$$log.st2" "$$log.beside"; exit $$st

# The build before the tests uses every CPU (a fresh clone builds libperf and everything);
# the tests themselves run one at a time (they share the machine's tracing state).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
check: deps
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) $(TB_BIN) $(HELPERS) $(UST_PROVIDER) $(TEST_BIN) \
		$(BUILD)/tools/tb-getpid-loop
	$(Q)$(MAKE) --no-print-directory test

e2e: $(TB_BIN) $(HELPERS) $(UST_PROVIDER)
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) TB_HELPERS=$(CURDIR)/$(BUILD)/helpers tests/e2e/run.sh

# ---- demo, benchmarks, validation, fuzzing -------------------------------------------------
# --wait: queue behind another run (another user's, CI's) instead of exiting 3.
DEMO_ARGS ?=
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)./$(TB_BIN) run scenarios/quick.ini --wait $(DEMO_ARGS)

bench-workloads: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/bench-workloads
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) TB_BENCH=$(CURDIR)/$(BUILD)/bench-workloads \
		TB_HELPERS=$(CURDIR)/$(BUILD)/helpers tools/bench-workloads.sh

# The workload benchmark program: the sample API on every workload, no tracer.
$(BUILD)/bench-workloads: $(BUILD)/tools/bench-workloads.o $(LIBOBJS)
	$(msg) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The dry-run estimate against a real run (ESTIMATE_ARGS: scenario and run options).
ESTIMATE_ARGS ?= scenarios/quick.ini --quick
bench-estimate: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/bench-estimate.sh $(ESTIMATE_ARGS)

# Precision per minute (METHODOLOGY.md 9): tracebench --max-time 60s against hyperfine on the
# same question for the same wall time; PRECISION_FAMILIES=1: every tracer family's run of a
# scenario of precision and max-time only; PRECISION_LOAD=1: those with one busy CPU beside the
# measured one (tools/loadgen.py). On a shared machine run it under the machine's run lock
# (flock /run/tracebench/lock).
bench-precision: deps
	$(Q)$(MAKE) --no-print-directory all $(UST_PROVIDER) $(PRECISION_TOOLS)
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) TB_TOOLS=$(CURDIR)/$(BUILD)/tools \
		TB_HELPERS=$(CURDIR)/$(BUILD)/helpers python3 tools/bench-precision.py $(PRECISION_ARGS)

# The bpf tracer's pid filter: the writable global its rearm re-points against the folded .rodata
# constant, paired within rounds (METHODOLOGY.md 9). PID_KNOB_ARGS: extra `run` arguments.
bench-pid-knob: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) python3 tools/bench-pid-knob.py

# What rearm saves per sample, per tracer family: reuse-tracers true against false on the same
# scenario (METHODOLOGY.md 9). REARM_FAMILIES: a comma list of bench-precision's families.
bench-rearm: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) python3 tools/bench-rearm.py

# Where a getpid's noise comes from on the measured CPU (per process, within a process) and the
# half-width a paired run could reach in 60 s at each sample length (METHODOLOGY.md 9).
# NOISE_ARGS: tools/noise-components.py's options (--fixed-from RESULT.json: a run's own costs;
# --load 1: one busy CPU beside the measured one).
NOISE_ARGS ?=
bench-noise: deps
	$(Q)$(MAKE) --no-print-directory $(BUILD)/tools/tb-getpid-loop
	$(Q)TB_TOOLS=$(CURDIR)/$(BUILD)/tools python3 tools/noise-components.py $(NOISE_ARGS)

# hyperfine's targets and setup for bench-precision (tools/loop-switch.c: the tracer switches the
# two loops share). The getpid loop is static, like the workload helpers; the usercall loop runs
# the usercall workload's own object (and the core/ it leans on); tb-bpf-arm loads the bundled
# skeletons with libbpf.
PRECISION_TOOLS = $(addprefix $(BUILD)/tools/,tb-getpid-loop tb-usercall-loop tb-bpf-arm)
$(BUILD)/tools/tb-getpid-loop: tools/getpid-loop.c tools/loop-switch.c tools/loop-switch.h | need-deps
	@mkdir -p $(dir $@)
	$(msg) HELPER $@
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -static -o $@ tools/getpid-loop.c tools/loop-switch.c

$(BUILD)/tools/tb-usercall-loop: $(BUILD)/tools/usercall-loop.o $(BUILD)/tools/loop-switch.o \
		$(BUILD)/workloads/usercall.o $(BUILD)/workloads/common.o \
		$(filter $(BUILD)/harness/core/%,$(OBJS))
	$(msg) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs jansson libcrypto 2>/dev/null) \
		-ldl -lpthread -lm

$(BUILD)/tools/tb-bpf-arm: $(BUILD)/tools/bpf-arm.o
	$(msg) LINK $@
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(shell pkg-config --libs libbpf 2>/dev/null)

validate: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)st=0; TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate.sh || st=1; \
	TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-accounting.sh || st=1; \
	TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-sweeps.sh || st=1; \
	TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-services.sh || st=1; \
	TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-services-delay.sh || st=1; exit $$st

# A command tracer's overhead with its accounting enabled equals it with the accounting
# disabled, within the CIs (METHODOLOGY.md, "The measurer never inflates the measured").
validate-accounting: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-accounting.sh

# A sweep recovers the delay tracer's known slope, and a knob that changes nothing gives no
# slope in >= 95% of 20 repeats (METHODOLOGY.md 2.12).
validate-sweeps: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-sweeps.sh

# An A/A of each service (two `none` cells): no throughput or p99 overhead verdict in >= 95% of
# the judged pairs over VALIDATE_SVC_REPEATS runs (METHODOLOGY.md "Services").
validate-services: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-services.sh

# A known per-request delay (a BPF spin at a syscall each request makes, on the server's
# cgroup) recovered in ns per request and, in an open loop, in p50 (METHODOLOGY.md "Services").
validate-services-delay: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-services-delay.sh

# Change-point detection on real histories of this machine (METHODOLOGY.md, section 8).
validate-history: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/validate-history.sh

# Coverage of the 95% intervals on real runs of the precision protocol (METHODOLOGY.md, section 9).
validate-coverage: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) python3 tools/validate-coverage.py

# The same under 0, 1 and 2 busy CPUs besides the measured one (stress-ng; issue 32).
validate-coverage-loaded: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) COVERAGE_LOAD=$${COVERAGE_LOAD:-0,1,2} \
		COVERAGE_RUNS=$${COVERAGE_RUNS:-8} python3 tools/validate-coverage.py

# The figures README.md, METHODOLOGY.md and doc/*.md quote, measured again with this machine's
# fingerprint into doc/figures.json and rendered into the documents (tools/figures.py). A
# benchmark: not part of make check, which checks the documents against the committed file.
# FIGURES=accounting,demo regenerates those sections only (`tools/figures.py list`: all; a
# section fed by another's run, e.g. sources by the validation's, is measured with it).
FIGURES ?=
comma	 := ,
figures: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/bench-workloads $(UST_PROVIDER) $(PRECISION_TOOLS)
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) python3 tools/figures.py run $(subst $(comma), ,$(FIGURES))

# Adding 1,000 result files to a history and detecting over all its series: figures printed.
bench-history: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/bench-history.sh

# The service workloads' throughput CV and overhead CI half-width (issue 30; SERVICES_ARGS:
# seconds per cell and sample duration, default 60 5).
bench-services: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)TB_BIN=$(CURDIR)/$(TB_BIN) tools/bench-services.sh $(SERVICES_ARGS)

fuzz: deps
	$(Q)tools/fuzz.sh $(FUZZ_SECONDS)

# libFuzzer binaries (tests/fuzz/fuzz_*.c + every object but main.o). tools/fuzz.sh calls this
# with CC=clang BUILD=build-fuzz SANFLAGS='-fsanitize=fuzzer-no-link,address,undefined ...'.
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
FUZZERS	 = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/fuzz/%)

fuzzers: $(FUZZERS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIBOBJS)
	@mkdir -p $(dir $@)
	$(msg) FUZZER $@
	$(Q)$(CC) $(BASE_CFLAGS) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(LIBOBJS) $(LDLIBS)

valgrind: deps
	$(Q)$(MAKE) --no-print-directory $(TEST_BIN) $(HELPERS) $(UST_PROVIDER)
	$(Q)TB_TEST_DATA=$(CURDIR)/tests/data TB_HELPERS=$(CURDIR)/$(BUILD)/helpers \
		valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1 \
		--suppressions=tests/valgrind.supp $(TEST_BIN) $(VALGRIND_SUITES)

asan:
	$(Q)$(MAKE) --no-print-directory SAN=1 all
	$(Q)cp tracebench-san tracebench-asan

ubsan:
	$(Q)$(MAKE) --no-print-directory SAN=1 all
	$(Q)cp tracebench-san tracebench-ubsan

format:
	$(Q)clang-format -i $(SRCS) $(HDRS) $(wildcard tests/lib/*.h)

format-check:
	$(Q)clang-format --dry-run --Werror $(SRCS) $(HDRS) $(wildcard tests/lib/*.h)

# ---- the man page ----------------------------------------------------------------------------
# doc/tracebench.1 is committed; `make man` remakes it from doc/tracebench.1.in and the code's
# option tables (tests/e2e/t-man.sh fails when the committed page is not what this gives).
man: $(TB_BIN)
	$(Q)./$(TB_BIN) list --man doc/tracebench.1.in > doc/tracebench.1.tmp && \
		mv doc/tracebench.1.tmp doc/tracebench.1

# ---- install -------------------------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/scenarios $(DESTDIR)$(DATADIR)/plots \
		$(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)
	install -m 0755 $(TB_BIN) $(DESTDIR)$(BINDIR)/tracebench
	install -d $(DESTDIR)$(DATADIR)/scenarios/validation $(DESTDIR)$(DATADIR)/scenarios/bpftrace
	install -m 0644 scenarios/*.ini $(DESTDIR)$(DATADIR)/scenarios/
	install -m 0644 scenarios/validation/*.ini $(DESTDIR)$(DATADIR)/scenarios/validation/
	install -m 0644 scenarios/bpftrace/*.ini $(DESTDIR)$(DATADIR)/scenarios/bpftrace/
	install -m 0755 scenarios/bpftrace/*.bt $(DESTDIR)$(DATADIR)/scenarios/bpftrace/
	install -m 0644 $(wildcard plots/*.gp) $(DESTDIR)$(DATADIR)/plots/
	$(if $(HELPERS),install -m 0755 $(HELPERS) $(DESTDIR)$(LIBEXECDIR)/)
	install -m 0644 $(UST_PROVIDER) $(DESTDIR)$(LIBEXECDIR)/
	install -m 0644 doc/tracebench.1 $(DESTDIR)$(MANDIR)/tracebench.1
	install -d $(DESTDIR)$(DOCDIR) $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 README.md METHODOLOGY.md doc/*.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 tools/completion.bash $(DESTDIR)$(COMPLETIONDIR)/tracebench
	cd fleet && find . -type d -exec install -d $(DESTDIR)$(DATADIR)/fleet/{} \; && \
		find . -type f -exec install -m 0644 {} $(DESTDIR)$(DATADIR)/fleet/{} \;

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tracebench $(DESTDIR)$(MANDIR)/tracebench.1
	rm -f $(DESTDIR)$(COMPLETIONDIR)/tracebench
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DOCDIR)

# The package is built in a copy of the tree's files (tracked and new, not ignored) under
# $(BUILD)/deb: debhelper's clean and PREFIX=/usr build leave this tree's build alone. The
# .deb lands in DEB_OUT (tests/e2e/t-deb.sh points it elsewhere). lintian gets a TMPDIR of its
# own, removed after it: it leaves its ELF index there (mldbm-elf-*, a Berkeley DB).
DEB_VERSION = $(shell sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)
DEB_OUT	?= .
deb: | need-deps
	$(Q)rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/src
	$(Q){ git ls-files -z -co --exclude-standard 2>/dev/null || \
	      find . -path ./build -prune -o -path ./.git -prune -o -type f -print0; } | \
		tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C $(BUILD)/deb/src
	$(msg) DEB tracebench_$(DEB_VERSION)
	$(Q)cd $(BUILD)/deb/src && DEPS_DIR=$(abspath $(DEPS_DIR)) \
		LIBPERF_PREFIX=$(abspath $(LIBPERF_PREFIX)) \
		dpkg-buildpackage -b -us -uc >../build.log 2>&1 || \
		{ tail -n 30 ../build.log; echo "make deb: dpkg-buildpackage failed (log: $(BUILD)/deb/build.log)" >&2; exit 1; }
	$(Q)mv $(BUILD)/deb/tracebench_$(DEB_VERSION)_*.deb $(DEB_OUT)/
	$(Q)t=$$(mktemp -d) && { TMPDIR=$$t lintian --fail-on error \
		$(DEB_OUT)/tracebench_$(DEB_VERSION)_*.deb; st=$$?; rm -rf "$$t"; exit $$st; }

clean:
	rm -rf build build-san build-fuzz tracebench tracebench-san tracebench-asan tracebench-ubsan

distclean: clean
	rm -rf $(DEPS_DIR)

-include $(OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(BUILD)/tools/bench-workloads.d
