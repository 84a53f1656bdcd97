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
		scoreboard.c rtt.c \
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

DEPS_PKGS  := linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
		qemu-system-x86 busybox-static iproute2 ethtool iperf3 \
		libmnl-dev sparse socat python3 python3-yaml kmod cpio gcc \
		make bc libc6-dev mptcpize xz-utils clang libclang-rt-14-dev

.PHONY: all module tools unit check run demo perf deps vm-shell checkpatch \
	sparse install clean ksrc fuzz fuzz-build fuzz-check

all: module tools

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run 'make deps'"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools: $(NET_TOOLS) $(PERF_TOOLS)
	$(MAKE) -C tools/mpdt

selftests/net/mpdt_msg: selftests/net/mpdt_msg.c $(UAPI)/linux/mpdt.h
	$(CC) $(CFLAGS_TOOLS) -o $@ $< -lm

tools/perf/mpdt-perf: tools/perf/mpdt-perf.c $(UAPI)/linux/mpdt.h
	$(CC) $(CFLAGS_TOOLS) -o $@ $< -lpthread

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

# The module's default parameters, for the unit tests and the fuzzers: the
# initializer of mpdt_default_params in main.c, so they never drift apart.
$(DEFAULTS_H): $(CORE_DIR)/main.c
	@mkdir -p $(dir $@)
	{ echo '/* Generated from $< by the Makefile. */'; \
	  sed -n '/^struct mpdt_params mpdt_default_params = {/,/^};/p' $< | \
	  sed 's/^struct mpdt_params mpdt_default_params/static const struct mpdt_params mpdt_module_defaults/'; \
	} >$@.tmp
	grep -q mpdt_module_defaults $@.tmp && mv $@.tmp $@

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
	$(MAKE) all $(UNIT_BINS) $(FUZZ_BINS)
	MPDT_VM_KVER=$(KVER) MPDT_FUZZ_SECONDS=$(FUZZ_CHECK_SECONDS) \
		tools/testing/check.sh

# The demo: two network namespaces exchange messages in a VM.
run demo: deps
	$(MAKE) all
	tools/testing/vm/run.sh -k $(KVER) -t 1200 -- tools/demo.sh

# FCT benchmarks of MPDT, TCP, MPTCP and UDP in the VM (6-10 min under TCG).
perf: deps
	$(MAKE) all
	tools/testing/vm/run.sh -k $(KVER) -t 1200 -- tools/perf/perf_selftest.sh

vm-shell: all
	tools/testing/vm/run.sh -k $(KVER) -i

# Kernel code strictly; userspace tools may use stdint types and long
# format strings.
CHECKPATCH = $(KSRC)/scripts/checkpatch.pl --strict --no-tree --terse \
		--ignore FILE_PATH_CHANGES
checkpatch: $(KSRC)/.stamp
	$(CHECKPATCH) -f $$(git ls-files 'net/*.[ch]' 'include/*.h')
	$(CHECKPATCH) --ignore PREFER_KERNEL_TYPES,SPLIT_STRING \
		-f $$(git ls-files 'tools/*.[ch]' 'selftests/*.[ch]')

sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) C=2 modules

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	$(MAKE) -C tools/mpdt install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || true
	rm -rf $(BUILD) $(NET_TOOLS) $(PERF_TOOLS)
	$(MAKE) -C tools/mpdt clean
