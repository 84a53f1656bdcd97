# SPDX-License-Identifier: GPL-2.0
#
# MPDT top-level Makefile.  `make` builds the module and the tools;
# `make run` runs the demo in a VM; `make check` runs every test.
# See README.md.

KSRC_TAR   ?= $(lastword $(sort $(wildcard /usr/src/linux-source-*.tar.xz)))
RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
NEWEST_HDRS := $(lastword $(sort $(wildcard /usr/src/linux-headers-*-amd64)))
KDIR       ?= $(if $(wildcard $(RUNNING_KDIR)),$(RUNNING_KDIR),$(NEWEST_HDRS))
# The VM boots the kernel the module was built for.
KVER       ?= $(if $(filter /lib/modules/%,$(KDIR)),$(word 3,$(subst /, ,$(KDIR))),$(patsubst linux-headers-%,%,$(notdir $(KDIR))))

BUILD      := build
DEFAULTS_H := $(BUILD)/gen/default_params.h
KSRC       := $(BUILD)/ksrc
UAPI       := include/uapi
CORE_DIR   := net/mpdt
CORE_SRCS  := $(addprefix $(CORE_DIR)/,engine.c reasm.c wire.c sack.c \
		scoreboard.c rtt.c path.c pacing.c \
		params.c algo.c lb_ecmp.c lb_oblivious.c lb_bitmap.c \
		lb_reps.c lb_prime.c lb_paralet.c cc_fixed.c \
		cc_strack.c cc_smartt.c cc_mcc.c)
CFLAGS_TOOLS := -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		-I$(UAPI)
SAN        := -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all

UNIT_SRCS  := $(wildcard selftests/unit/test_*.c)
UNIT_BINS  := $(patsubst selftests/unit/%.c,$(BUILD)/unit/%,$(UNIT_SRCS))
NET_TOOLS  := selftests/net/mpdt_msg selftests/net/sockapi
PERF_TOOLS := tools/perf/mpdt-perf

# libFuzzer targets of the pure core (selftests/fuzz/): clang, ASan, UBSan.
FUZZ_CC    ?= clang
FUZZ_SRCS  := $(wildcard selftests/fuzz/fuzz_*.c)
FUZZ_BINS  := $(patsubst selftests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
FUZZ_CFLAGS := -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer -I$(UAPI) -I$(CORE_DIR) \
		-Iselftests/fuzz -I$(BUILD)/gen
# Seconds per target: `make fuzz` (long runs) and `make check` (the floor).
FUZZ_SECONDS ?= 600
FUZZ_CHECK_SECONDS ?= 60
# Parallel jobs of `make check`'s build and of its unit and fuzz runs.
JOBS       ?= $(shell nproc)

DEPS_PKGS  := linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
		qemu-system-x86 busybox-static iproute2 ethtool iperf3 \
		libmnl-dev sparse socat python3 python3-yaml kmod cpio gcc \
		make bc libc6-dev mptcpize xz-utils clang libclang-rt-14-dev \
		dkms linux-perf tcpdump tshark python3-matplotlib python3-jsonschema \
		libns3-dev g++

.PHONY: all module tools unit check run demo perf bench deps vm-shell checkpatch \
	sparse install uninstall install-check dkms-check wireshark-check \
	figures-check spec-check perf-check clean ksrc fuzz fuzz-build \
	fuzz-check sim sim-quick sim-check watchdog-check isolation-check

all: module tools

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run 'make deps'"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools: $(NET_TOOLS) $(PERF_TOOLS)
	$(MAKE) -C tools/mpdt

selftests/net/mpdt_msg: selftests/net/mpdt_msg.c $(UAPI)/linux/mpdt.h
	$(CC) $(CFLAGS_TOOLS) -o $@ $< -lm

tools/perf/mpdt-perf: tools/perf/mpdt-perf.c $(UAPI)/linux/mpdt.h
	$(CC) $(CFLAGS_TOOLS) -o $@ $< -lpthread -lm

selftests/net/sockapi: selftests/net/sockapi.c $(UAPI)/linux/mpdt.h \
		$(KSRC)/.stamp
	$(CC) $(CFLAGS_TOOLS) -Wno-sign-compare \
		-I$(KSRC)/tools/testing/selftests -o $@ $< \
		-lpthread

# kselftest_harness.h and checkpatch.pl come from Debian's linux-source
# package, extracted here at build time and never committed.
$(KSRC)/.stamp: $(KSRC_TAR)
	@test -n "$(KSRC_TAR)" || { echo "linux-source missing: run 'make deps'"; exit 1; }
	mkdir -p $(KSRC)
	tar -xf $(KSRC_TAR) -C $(KSRC) --strip-components=1 --wildcards \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	touch $@

ksrc: $(KSRC)/.stamp

$(BUILD)/unit/%: selftests/unit/%.c $(CORE_SRCS) $(wildcard $(CORE_DIR)/*.h) \
		selftests/unit/unit.h $(KSRC)/.stamp $(DEFAULTS_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TOOLS) $(SAN) -I$(CORE_DIR) -Iselftests/unit \
		-I$(dir $(DEFAULTS_H)) \
		-I$(KSRC)/tools/testing/selftests -o $@ $< $(CORE_SRCS)

# Unit tests of the pure core: userspace, ASan + UBSan, seconds.
unit: $(UNIT_BINS)
	tools/testing/check.sh --unit-only

# The module's default parameters, for the unit tests, the fuzzers and the
# simulator (the def column of net/mpdt/params_table.h, as main.c expands
# it): the initializer of mpdt_default_params and the default policies'
# names in main.c, so they never drift apart.
$(DEFAULTS_H): $(CORE_DIR)/main.c
	@mkdir -p $(dir $@)
	{ echo '/* Generated from $< by the Makefile. */'; \
	  sed -n '/^struct mpdt_params mpdt_default_params = {/,/^};/p' $< | \
	  sed 's/^struct mpdt_params mpdt_default_params/static const struct mpdt_params mpdt_module_defaults/'; \
	  sed -n 's/^static char \(lb\|cc\)_name\[MPDT_ALGO_NAME_MAX\] = \(".*"\);/#define MPDT_MODULE_DEFAULT_\U\1\E \2/p' $<; \
	} >$@.tmp
	grep -q mpdt_module_defaults $@.tmp && grep -q DEFAULT_LB $@.tmp && \
		grep -q DEFAULT_CC $@.tmp && mv $@.tmp $@

$(BUILD)/fuzz/fuzz_%: selftests/fuzz/fuzz_%.c selftests/fuzz/fuzz.h \
		$(CORE_SRCS) $(wildcard $(CORE_DIR)/*.h) $(DEFAULTS_H)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(CORE_SRCS)

fuzz-build: $(FUZZ_BINS)

# Every fuzz target for FUZZ_CHECK_SECONDS (what `make check` runs), or
# for FUZZ_SECONDS (long runs); corpora in build/fuzz/corpus/, crashes in
# build/fuzz-crashes/.
fuzz-check: $(FUZZ_BINS)
	MPDT_FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) tools/testing/check.sh --fuzz-only

fuzz: $(FUZZ_BINS)
	MPDT_FUZZ_SECONDS=$(FUZZ_SECONDS) tools/testing/check.sh --fuzz-only

# The ns-3 model (tools/sim/, Debian's libns3-dev): the pure core compiled
# as for the unit tests, without sanitizers, under ns-3 hosts and switches.
SIM        := $(BUILD)/sim/mpdt-sim
SIM_OBJS   := $(patsubst $(CORE_DIR)/%.c,$(BUILD)/sim/core/%.o,$(CORE_SRCS)) \
		$(patsubst tools/sim/%.c,$(BUILD)/sim/%.o,$(wildcard tools/sim/*.c)) \
		$(patsubst tools/sim/%.cc,$(BUILD)/sim/%.o,$(wildcard tools/sim/*.cc))
SIM_CXXFLAGS := -std=c++17 -O2 -g -Wall -Wextra -Werror -Wno-unused-parameter
SIM_LIBS   := -lns3-core -lns3-network -lns3-internet -lns3-point-to-point \
		-lns3-traffic-control -lns3-applications

$(BUILD)/sim/core/%.o: $(CORE_DIR)/%.c $(wildcard $(CORE_DIR)/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TOOLS) -I$(CORE_DIR) -c -o $@ $<

$(BUILD)/sim/%.o: tools/sim/%.c $(wildcard tools/sim/*.h) \
		$(wildcard $(CORE_DIR)/*.h) $(DEFAULTS_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_TOOLS) -I$(CORE_DIR) -I$(dir $(DEFAULTS_H)) -c -o $@ $<

$(BUILD)/sim/%.o: tools/sim/%.cc $(wildcard tools/sim/*.hh) tools/sim/endpoint.h
	@mkdir -p $(dir $@)
	$(CXX) $(SIM_CXXFLAGS) -c -o $@ $<

$(SIM): $(SIM_OBJS)
	$(CXX) -o $@ $^ $(SIM_LIBS)

# The papers' experiments in the model (tools/sim/experiments.py): small
# versions on 2 cores in minutes (build/sim/quick.json), or the papers'
# scale (Documentation/sim/: JSON, tables and PNG figures; minutes).
# sim-check runs the small ones and asserts what must hold.
SIM_PY := /usr/bin/python3 tools/sim/experiments.py --sim $(SIM)
sim-quick: deps
	$(MAKE) $(SIM)
	$(SIM_PY) --quick --out $(BUILD)/sim

sim: deps
	$(MAKE) $(SIM)
	$(SIM_PY) --out Documentation/sim

sim-check: $(SIM)
	$(SIM_PY) --quick --check --out $(BUILD)/sim

# run.sh's timeout saves the vCPUs' state before it ends the VM.
watchdog-check:
	@tools/testing/vm/watchdog-check.sh

# Receive steering on a guest booted with CPU 1 isolated (steer.sh).
isolation-check: module tools
	@MPDT_VM_CMDLINE=isolcpus=1 tools/testing/vm/run.sh -k $(KVER) -t 600 \
		-- env MPDT_STEER_ISOLATED=1 tools/testing/vm/guest-kselftests.sh steer.sh

deps:
	@missing=; for p in $(DEPS_PKGS); do \
		dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y $$missing; \
	fi

# Every test: unit tests, fuzz targets (FUZZ_CHECK_SECONDS each), then all
# kselftests in one VM boot.
check: deps
	$(MAKE) -j$(JOBS) all $(UNIT_BINS) $(FUZZ_BINS)
	MPDT_VM_KVER=$(KVER) MPDT_FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) \
		MPDT_JOBS=$(JOBS) tools/testing/check.sh

# The demo: two network namespaces exchange messages in a VM.
run demo: deps
	$(MAKE) all
	tools/testing/vm/run.sh -k $(KVER) -t 1200 -- tools/demo.sh

# FCT benchmarks of MPDT, TCP, MPTCP and UDP in the VM (6-10 min under TCG).
perf: deps
	$(MAKE) all
	tools/testing/vm/run.sh -k $(KVER) -t 1200 -- tools/perf/perf_selftest.sh

# One veth pair: MPDT beside iperf3 TCP and UDP in three interleaved rounds,
# what each costs (vCPU time, packets and skbs per MiB) and a guest profile
# (tools/perf/bench_veth.py, about 8 min under TCG).  No slub_debug: it
# would tax MPDT's own caches.
bench: deps
	$(MAKE) all
	MPDT_VM_SLUB_DEBUG= tools/testing/vm/run.sh -k $(KVER) -t 1500 -- \
		tools/perf/bench_veth.py -p

vm-shell: all
	tools/testing/vm/run.sh -k $(KVER) -i

# Kernel code strictly; userspace tools may use stdint types and long
# format strings.
CHECKPATCH = $(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse \
		--ignore FILE_PATH_CHANGES
# The expansions of net/mpdt/params_table.h make struct members and module
# parameters, each ending in its semicolon and naming its field twice, as
# KVM's kvm-x86-ops.h users do: checkpatch's two warnings about that are
# off for those two files only.
XMACRO_USERS := net/mpdt/params.h net/mpdt/main.c
checkpatch: $(KSRC)/.stamp
	$(CHECKPATCH) -f $$(git ls-files 'net/*.[ch]' 'include/*.h' | \
		grep -vxF $(addprefix -e ,$(XMACRO_USERS)))
	$(CHECKPATCH) --ignore TRAILING_SEMICOLON,MACRO_ARG_REUSE \
		-f $(XMACRO_USERS)
	$(CHECKPATCH) --ignore PREFER_KERNEL_TYPES,SPLIT_STRING \
		-f $$(git ls-files 'tools/*.[ch]' 'selftests/*.[ch]')

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

# `make install`: the module (built against the headers, no linux-source
# tarball), depmod, mpdt(8), mpdt-perf, both man pages, <linux/mpdt.h> and
# the bash completion.  DESTDIR stages, PREFIX (/usr/local) places the
# userspace files; the module goes to /lib/modules/$(KVER)/$(INSTALL_MOD_DIR)
# of DESTDIR.  DEPMOD=: skips depmod (a package runs it on the target).
# SIGN_KEY and SIGN_CERT (PEM or DER, e.g. DKMS's /var/lib/dkms/mok.key and
# mok.pub) sign the installed module with the headers' scripts/sign-file;
# Debian's headers have no key of their own, so kbuild's signing is off.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
INCLUDEDIR ?= $(PREFIX)/include
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
INSTALL_MOD_DIR ?= extra
DEPMOD     ?= depmod
SIGN_HASH  ?= sha256
MODLIB     := $(DESTDIR)/lib/modules/$(KVER)
MOD_KO     := $(MODLIB)/$(INSTALL_MOD_DIR)/$(CORE_DIR)/mpdt.ko
# One source for the version: MODULE_VERSION in main.c; dkms.conf is
# checked against it.
MPDT_VERSION := $(shell sed -n 's/^MODULE_VERSION("\(.*\)");$$/\1/p' \
		$(CORE_DIR)/main.c)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' \
		dkms.conf 2>/dev/null)
INSTALL_VARS := DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" BINDIR="$(BINDIR)" \
		SBINDIR="$(SBINDIR)" MANDIR="$(MANDIR)" \
		COMPLETIONDIR="$(COMPLETIONDIR)"

install: module
	@test -n "$(KVER)" || { echo "no kernel version: set KDIR"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) CONFIG_MODULE_SIG_ALL= \
		modules_install
	$(if $(SIGN_KEY),$(KDIR)/scripts/sign-file $(SIGN_HASH) \
		$(SIGN_KEY) $(SIGN_CERT) $(MOD_KO))
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) $(KVER)
	$(MAKE) -C tools/mpdt install $(INSTALL_VARS)
	$(MAKE) -C tools/perf install $(INSTALL_VARS)
	install -D -m 0644 Documentation/mpdt.7 $(DESTDIR)$(MANDIR)/man7/mpdt.7
	install -D -m 0644 $(UAPI)/linux/mpdt.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/mpdt.h

uninstall:
	rm -f $(MOD_KO)
	-rmdir --ignore-fail-on-non-empty $(MODLIB)/$(INSTALL_MOD_DIR)/$(CORE_DIR) \
		$(MODLIB)/$(INSTALL_MOD_DIR)/$(dir $(CORE_DIR)) \
		$(MODLIB)/$(INSTALL_MOD_DIR) 2>/dev/null
	if [ -d $(MODLIB) ]; then \
		$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) $(KVER); fi
	$(MAKE) -C tools/mpdt uninstall $(INSTALL_VARS)
	$(MAKE) -C tools/perf uninstall $(INSTALL_VARS)
	rm -f $(DESTDIR)$(MANDIR)/man7/mpdt.7 \
		$(DESTDIR)$(INCLUDEDIR)/linux/mpdt.h
	-rmdir --ignore-fail-on-non-empty $(DESTDIR)$(INCLUDEDIR)/linux

# `make install` into a staging directory: every file is there, depmod
# found the module and its socket and genetlink aliases, modinfo reports
# MODULE_VERSION, dkms.conf agrees; then `make uninstall` leaves only
# depmod's indexes.  Non-zero exit on any miss.
install-check:
	@set -e; start=$$(date +%s); d=$$(mktemp -d); log=$$(mktemp); \
	trap 'rm -rf "$$d" "$$log"' EXIT; fail=0; \
	if ! $(MAKE) --no-print-directory install DESTDIR="$$d" \
			>"$$log" 2>&1; then \
		cat "$$log"; echo "install-check: make install failed"; \
		exit 1; fi; \
	m="$$d/lib/modules/$(KVER)"; \
	want() { if [ -f "$$d$$1" ]; then echo "  ok      $$1"; \
		else echo "  MISSING $$1"; fail=1; fi; }; \
	echo "install-check: staged in $$d:"; \
	(cd "$$d" && find . -type f ! -name 'modules.*' | sed 's|^\.|    |' \
		| sort); \
	echo "expected:"; \
	want "/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)/$(CORE_DIR)/mpdt.ko"; \
	want "/lib/modules/$(KVER)/modules.dep"; \
	want "$(SBINDIR)/mpdt"; want "$(BINDIR)/mpdt-perf"; \
	want "$(MANDIR)/man7/mpdt.7"; want "$(MANDIR)/man8/mpdt.8"; \
	want "$(INCLUDEDIR)/linux/mpdt.h"; \
	if [ -f tools/mpdt/mpdt.bash ]; then want "$(COMPLETIONDIR)/mpdt"; \
	else echo "  (no tools/mpdt/mpdt.bash: no completion to install)"; fi; \
	grep -q '^$(INSTALL_MOD_DIR)/$(CORE_DIR)/mpdt.ko:' "$$m/modules.dep" \
		&& echo "  ok      modules.dep lists mpdt.ko" || \
		{ echo "  MISSING mpdt.ko in modules.dep"; fail=1; }; \
	for a in net-pf-2-proto-254-type-2 net-pf-10-proto-254-type-2 \
			net-pf-16-proto-16-family-mpdt; do \
		grep -q "^alias $$a mpdt$$" "$$m/modules.alias" && \
		echo "  ok      alias $$a" || \
		{ echo "  MISSING alias $$a"; fail=1; }; done; \
	v=$$(modinfo -b "$$d" -k $(KVER) -F version mpdt || true); \
	if [ -n "$(MPDT_VERSION)" ] && [ "$$v" = "$(MPDT_VERSION)" ] && \
			[ "$$v" = "$(DKMS_VERSION)" ]; then \
		echo "  ok      version $$v (modinfo, main.c, dkms.conf)"; \
	else echo "  WRONG   version: modinfo '$$v', main.c" \
		"'$(MPDT_VERSION)', dkms.conf '$(DKMS_VERSION)'"; fail=1; fi; \
	$(MAKE) --no-print-directory uninstall DESTDIR="$$d" >>"$$log" 2>&1 \
		|| { cat "$$log"; echo "install-check: uninstall failed"; \
		     exit 1; }; \
	left=$$(cd "$$d" && find . -type f ! -path "./lib/modules/$(KVER)/modules.*"); \
	if [ -n "$$left" ] || grep -q mpdt "$$m/modules.dep"; then \
		echo "  LEFT after uninstall: $$left"; fail=1; \
	else echo "  ok      uninstall removed everything"; fi; \
	echo "install-check: $$([ $$fail = 0 ] && echo passed || echo FAILED)" \
		"in $$(($$(date +%s) - start)) s"; \
	exit $$fail

# The Wireshark dissector (tools/wireshark/mpdt.lua) against packets built
# from wire-format.rst, with tshark (~5 s, no VM); CAPTURE=file.pcap checks
# a real capture instead (selftests/net/dissector.sh does, in the VM).
wireshark-check:
	python3 tools/wireshark/test_dissector.py $(CAPTURE)

# The netlink spec against the YNL schema the project keeps
# (Documentation/netlink/genetlink-legacy.yaml), the schema against broken
# copies of the spec, and the spec, uAPI, parameter table, mpdt(8) and
# mpdt(7) against each other, defaults included (under a second, no VM;
# netlink.sh repeats the last in the VM).
spec-check:
	python3 tools/mpdt/spec_schema_check.py
	python3 tools/mpdt/spec_schema_check.py --self-test
	python3 tools/mpdt/spec_check.py

# mpdt-perf's options, modes, JSON and size distributions over TCP, MPTCP
# and UDP on the host (~5 s; it never opens an MPDT socket here:
# perf_selftest.sh's modes group runs them over MPDT in the VM).
perf-check: tools/perf/mpdt-perf
	python3 tools/perf/test_mpdt_perf.py

# The figures of tools/perf (figures.py, matplotlib) on the fixtures in
# tools/perf/testdata, and the JSON spread.py and cc_report.py write
# (~7 s, no VM).
figures-check:
	python3 tools/perf/test_figures.py

# A DKMS build (Debian's dkms, installed if missing) of the module's
# files (git's tracked and new ones, in a checkout), for $(KVER), in a
# private source and DKMS tree (never /usr/src or /var/lib/dkms; dkms
# signs with a throwaway MOK it makes there).  Never `dkms install`:
# nothing is loaded or installed.  The temporary trees go whatever
# happens.
dkms-check:
	@command -v dkms >/dev/null || { apt-get update && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y dkms; }
	@set -e; start=$$(date +%s); v="$(MPDT_VERSION)"; \
	if [ -z "$$v" ] || [ "$$v" != "$(DKMS_VERSION)" ]; then \
		echo "dkms-check: dkms.conf PACKAGE_VERSION '$(DKMS_VERSION)'" \
			"is not main.c's MODULE_VERSION '$$v'"; exit 1; fi; \
	t=$$(mktemp -d); \
	dk() { dkms "$$@" --sourcetree "$$t/src" --dkmstree "$$t/dkms"; }; \
	trap 'dk remove -m mpdt -v '"$$v"' --all >/dev/null 2>&1 || true; \
		rm -rf "$$t"' EXIT; \
	mkdir -p "$$t/src/mpdt-$$v" "$$t/dkms"; \
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -co --exclude-standard -z -- Kbuild dkms.conf \
			$(CORE_DIR) $(UAPI); \
	else find Kbuild dkms.conf $(CORE_DIR) $(UAPI) -type f -print0; fi | \
		xargs -0 cp --parents -t "$$t/src/mpdt-$$v"; \
	export mok_signing_key="$$t/mok.key" mok_certificate="$$t/mok.pub"; \
	dk build -m mpdt -v "$$v" -k $(KVER) || { \
		cat "$$t"/dkms/mpdt/"$$v"/build/make.log 2>/dev/null; exit 1; }; \
	ko="$$t/dkms/mpdt/$$v/$(KVER)/$$(uname -m)/module/mpdt.ko"; \
	test -f "$$ko" || { echo "dkms-check: no $$ko"; exit 1; }; \
	echo "dkms-check: built $$ko"; \
	modinfo -F version "$$ko" | sed 's/^/  version /'; \
	modinfo -F vermagic "$$ko" | sed 's/^/  vermagic /'; \
	modinfo -F signer "$$ko" | sed 's/^/  signer /'; \
	echo "dkms-check: passed in $$(($$(date +%s) - start)) s"

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf $(BUILD) $(NET_TOOLS) $(PERF_TOOLS)
	$(MAKE) -C tools/mpdt clean
