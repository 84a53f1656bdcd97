#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh - run MPDT's tests and print one verdict line.
#
#   tools/testing/check.sh              unit tests, host checks, fuzz
#                                       targets, then all kselftests in one VM
#   tools/testing/check.sh --unit-only  only the unit test binaries in build/unit/
#   tools/testing/check.sh --host-only  only the host checks (HOST_CHECKS)
#   tools/testing/check.sh --fuzz-only  only the fuzz targets in build/fuzz/
#   tools/testing/check.sh --vm-only    only the kselftests (one VM)
#   tools/testing/check.sh --test NAME  only kselftest NAME (one VM)
#
# It does not build anything: run 'make' first ('make fuzz-build' for the
# fuzz targets).
#
# The last line of output is always "N passed, N failed, N skipped", summed
# over unit tests, host checks, fuzz targets and kselftests. A host check
# or a fuzz target is one test: passed if it exits 0, or for a fuzz target,
# if it ran MPDT_FUZZ_SECONDS with no crash. Exit status: 0 if
# nothing failed and at least one test ran, 1 otherwise, 2 on a usage error.
#
# Environment:
#   MPDT_UNIT_DIR      unit test binaries (default build/unit)
#   MPDT_UNIT_TIMEOUT  seconds per unit test binary (default 300)
#   MPDT_FUZZ_DIR      fuzz target binaries (default build/fuzz)
#   MPDT_FUZZ_SECONDS  seconds per fuzz target (default 60; 0 skips them)
#   MPDT_TESTS_FILE    kselftest list (default selftests/net/TESTS)
#   MPDT_KSFT_TIMEOUT  override every kselftest's own timeout (seconds)
#   MPDT_VM_TIMEOUT    seconds for the whole VM run (default 2100 = 35 min)
#   MPDT_VM_OPTS       extra run.sh options, e.g. "-m 4096 -c 2"
#   MPDT_JOBS          unit test binaries and fuzz targets run at once
#                      (default: the number of CPUs)

set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPT_DIR
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
readonly REPO_ROOT
readonly RUN_SH=tools/testing/vm/run.sh
readonly GUEST_RUNNER=tools/testing/vm/guest-kselftests.sh
readonly KSFT_SKIP=4

# Paths given relative to the caller's directory are honoured; any other
# relative path is taken from the repository root.
if [[ -n ${MPDT_TESTS_FILE:-} && -e $MPDT_TESTS_FILE ]]; then
	MPDT_TESTS_FILE=$(realpath "$MPDT_TESTS_FILE")
fi
if [[ -n ${MPDT_UNIT_DIR:-} && -d $MPDT_UNIT_DIR ]]; then
	MPDT_UNIT_DIR=$(realpath "$MPDT_UNIT_DIR")
fi
if [[ -n ${MPDT_FUZZ_DIR:-} && -d $MPDT_FUZZ_DIR ]]; then
	MPDT_FUZZ_DIR=$(realpath "$MPDT_FUZZ_DIR")
fi
cd "$REPO_ROOT"

UNIT_DIR=${MPDT_UNIT_DIR:-build/unit}
UNIT_TIMEOUT=${MPDT_UNIT_TIMEOUT:-300}
FUZZ_DIR=${MPDT_FUZZ_DIR:-build/fuzz}
FUZZ_SECONDS=${MPDT_FUZZ_SECONDS:-60}
TESTS_FILE=${MPDT_TESTS_FILE:-selftests/net/TESTS}
VM_TIMEOUT=${MPDT_VM_TIMEOUT:-2100}
read -r -a VM_OPTS <<<"${MPDT_VM_OPTS:-}"
JOBS=${MPDT_JOBS:-$(nproc)}
# Output of the unit tests and fuzz targets run in parallel.
PAR_DIR=$(mktemp -d)
trap 'rm -rf "$PAR_DIR"' EXIT

# Host checks: whole-tree checks that need no VM, "NAME:COMMAND", one test
# each.
HOST_CHECKS=(
	"install-check:make -s --no-print-directory install-check"
	"wireshark-check:make -s --no-print-directory wireshark-check"
	"figures-check:make -s --no-print-directory figures-check"
	"spec-check:make -s --no-print-directory spec-check"
	"perf-check:make -s --no-print-directory perf-check"
	"sim-check:make -s --no-print-directory sim-check"
	"watchdog-check:make -s --no-print-directory watchdog-check"
	"isolation-check:make -s --no-print-directory isolation-check"
)

declare -i passed=0 failed=0 skipped=0 ksft_seen=0
ksft_unfinished=
failed_names=()

usage() {
	sed -n '3,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

say() { echo "check.sh: $*"; }

# fail_one NAME: one failure that no TAP line accounts for.
fail_one() {
	failed+=1
	failed_names+=("$1")
}

# in_parallel CMD ITEM...: run "CMD ITEM" for every ITEM, at most $JOBS at
# once, in the background of the calling shell.  The caller waits.
in_parallel() {
	local cmd=$1 item
	shift
	for item in "$@"; do
		while (($(jobs -rp | wc -l) >= JOBS)); do
			wait -n || true
		done
		"$cmd" "$item" &
	done
}

# unit_start BIN: run one unit test binary, its output into
# $PAR_DIR/NAME.log and its exit code into $PAR_DIR/NAME.rc.
unit_start() {
	local bin=$1 out rc=0
	out=$PAR_DIR/$(basename "$bin")
	timeout -k 5 "$UNIT_TIMEOUT" "$bin" </dev/null >"$out.log" 2>&1 || rc=$?
	echo "$rc" >"$out.rc"
}

# unit_verdict BIN: print what unit_start left of BIN, add up its Totals
# line.
unit_verdict() {
	local bin=$1 name log rc totals
	local -i p f xf xp s e
	name=$(basename "$bin")
	log=$PAR_DIR/$name.log
	rc=$(cat "$PAR_DIR/$name.rc")
	echo "## unit: $name"
	cat "$log"
	totals=$(tr -d '\r' <"$log" | grep -E '^# Totals: ' | tail -n1) || true

	local re='pass:([0-9]+) fail:([0-9]+) xfail:([0-9]+) xpass:([0-9]+) skip:([0-9]+) error:([0-9]+)'
	if [[ $totals =~ $re ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} xf=${BASH_REMATCH[3]}
		xp=${BASH_REMATCH[4]} s=${BASH_REMATCH[5]} e=${BASH_REMATCH[6]}
		# An expected failure is a pass; an unexpected pass fails, as
		# in kselftest.h's own exit code.
		passed+=$((p + xf))
		failed+=$((f + xp + e))
		skipped+=$s
		if ((f + xp + e > 0)); then
			failed_names+=("unit: $name ($((f + xp + e)) failed)")
		elif [[ $rc != 0 && $rc != "$KSFT_SKIP" ]]; then
			# E.g. a LeakSanitizer report, which comes after Totals.
			fail_one "unit: $name (exit $rc after a clean Totals line)"
		fi
		return
	fi
	case $rc in
	0) say "warning: $name printed no Totals line; counted as 1 pass"
	   passed+=1 ;;
	"$KSFT_SKIP") skipped+=1 ;;
	124 | 137) fail_one "unit: $name (timeout after ${UNIT_TIMEOUT} s)" ;;
	*) fail_one "unit: $name (exit $rc, no Totals line)" ;;
	esac
}

run_unit_tests() {
	local bin bins=()
	if [[ ! -d $UNIT_DIR ]]; then
		say "no $UNIT_DIR/: 0 unit test binaries (run make first?)"
		return
	fi
	for bin in "$UNIT_DIR"/*; do
		[[ -f $bin && -x $bin ]] && bins+=("$bin")
	done
	if ((${#bins[@]} == 0)); then
		say "no executables in $UNIT_DIR/: 0 unit test binaries"
		return
	fi
	in_parallel unit_start "${bins[@]}"
	wait
	for bin in "${bins[@]}"; do
		unit_verdict "$bin"
	done
}

run_host_checks() {
	local check name rc
	for check in "${HOST_CHECKS[@]}"; do
		name=${check%%:*}
		echo "## host: $name"
		rc=0
		bash -c "${check#*:}" </dev/null 2>&1 || rc=$?
		if [[ $rc == 0 ]]; then
			passed+=1
		else
			fail_one "host: $name (exit $rc)"
		fi
	done
}

# fuzz_start BIN: one libFuzzer target for FUZZ_SECONDS. Corpus in
# build/fuzz/corpus/NAME (seeded from selftests/fuzz/corpus/NAME), a crash's
# input in build/fuzz-crashes/, its log in build/fuzz/NAME.log, its exit
# code and wall time (ms) in $PAR_DIR/NAME.rc.
fuzz_start() {
	local bin=$1 name rc=0 start corpus seeds=()
	name=$(basename "$bin")
	name=${name#fuzz_}
	corpus=build/fuzz/corpus/$name
	mkdir -p "$corpus" build/fuzz-crashes
	[[ ! -d selftests/fuzz/corpus/$name ]] || seeds=("selftests/fuzz/corpus/$name")
	start=$(date +%s%N)
	timeout -k 10 $((FUZZ_SECONDS + 300)) "$bin" \
		-max_total_time="$FUZZ_SECONDS" -timeout=30 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="build/fuzz-crashes/$name-" \
		"$corpus" "${seeds[@]}" </dev/null >"build/fuzz/$name.log" 2>&1 || rc=$?
	echo "$rc $((($(date +%s%N) - start) / 1000000))" >"$PAR_DIR/$name.rc"
}

# fuzz_verdict BIN: one test, passed if fuzz_start's run of BIN lasted
# FUZZ_SECONDS without a crash.
fuzz_verdict() {
	local bin=$1 name log rc ms stats crash
	name=$(basename "$bin")
	name=${name#fuzz_}
	log=build/fuzz/$name.log
	read -r rc ms <"$PAR_DIR/$name.rc"
	echo "## fuzz: $name (${FUZZ_SECONDS} s)"
	# The last status line: "#N DONE cov: C ft: F corp: K/S ... exec/s: E".
	stats=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -n1 | sed -E 's/^#([0-9]+)[[:space:]]+[A-Z]+[[:space:]]+/\1 execs, /') || true
	echo "# fuzz: $name: ${stats:-no status line} in $((ms / 1000)) s"
	if [[ $rc == 0 ]] && ((ms >= FUZZ_SECONDS * 1000)); then
		passed+=1
		return
	fi
	grep -E '^(INVARIANT|SUMMARY|==[0-9]+==ERROR)|runtime error' "$log" |
		head -n5 | sed 's/^/# /' || true
	crash=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -n1) || true
	crash=${crash#Test unit written to }
	[[ -z $crash ]] || echo "# reproduce: FUZZ_TRACE=1 $bin $crash"
	if [[ $rc == 0 ]]; then
		fail_one "fuzz: $name (ran $((ms / 1000)) s of ${FUZZ_SECONDS})"
	else
		fail_one "fuzz: $name (exit $rc${crash:+, input $crash}; log $log)"
	fi
}

run_fuzz_targets() {
	local bin bins=()
	if [[ $FUZZ_SECONDS == 0 ]]; then
		say "MPDT_FUZZ_SECONDS=0: fuzz targets skipped"
		return
	fi
	if [[ ! -d $FUZZ_DIR ]]; then
		say "no $FUZZ_DIR/: 0 fuzz targets (run make fuzz-build?)"
		return
	fi
	for bin in "$FUZZ_DIR"/fuzz_*; do
		[[ -f $bin && -x $bin ]] && bins+=("$bin")
	done
	if ((${#bins[@]} == 0)); then
		say "no fuzz_* executables in $FUZZ_DIR/: 0 fuzz targets"
		return
	fi
	say "${#bins[@]} fuzz targets, $JOBS at a time, ${FUZZ_SECONDS} s each"
	in_parallel fuzz_start "${bins[@]}"
	wait
	for bin in "${bins[@]}"; do
		fuzz_verdict "$bin"
	done
}

# Count the TAP result lines of guest-kselftests.sh in LOG. Only top-level
# lines count: the tests' own output is '# '-prefixed. Sets ksft_seen, and
# ksft_unfinished to the test that started but never reported (the one a
# crash or timeout hit).
count_ksft() {
	local log=$1 line started=
	local -i plan=0 seen=0
	while IFS= read -r line; do
		line=${line%$'\r'}
		if [[ $line =~ ^#\ selftests:\ [^:]*:\ (.*)$ ]]; then
			started=${BASH_REMATCH[1]}
			continue
		elif [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
			continue
		elif [[ $line =~ ^ok\ [0-9]+\ selftests:\ .*\#\ SKIP ]]; then
			skipped+=1
		elif [[ $line =~ ^ok\ [0-9]+\ selftests: ]]; then
			passed+=1
		elif [[ $line =~ ^not\ ok\ [0-9]+\ selftests:\ [^:]*:\ (.*)$ ]]; then
			failed+=1
			failed_names+=("kselftest: ${BASH_REMATCH[1]}")
		else
			continue
		fi
		seen+=1
		started=
	done <"$log"
	ksft_seen=$seen
	ksft_unfinished=$started
	if ((seen < plan)); then
		say "$((plan - seen)) of $plan kselftests reported no result"
	fi
}

run_kselftests() {
	local only=${1:-} res rc=0
	local -a env_args runner_args=()
	if [[ -z $only && ! -r $TESTS_FILE ]]; then
		say "no kselftest list at $TESTS_FILE: 0 kselftests"
		return
	fi
	if [[ -z $only ]] && ! grep -qvE '^[[:space:]]*(#|$)' "$TESTS_FILE"; then
		say "$TESTS_FILE lists no tests: 0 kselftests"
		return
	fi
	[[ -z $only ]] || runner_args=("$only")
	env_args=("MPDT_TESTS_FILE=$TESTS_FILE")
	[[ -z ${MPDT_KSFT_TIMEOUT:-} ]] || env_args+=("MPDT_KSFT_TIMEOUT=$MPDT_KSFT_TIMEOUT")

	# Named like run.sh's own results directories, so they are pruned alike.
	mkdir -p build/vm/results
	res=$(mktemp -d "build/vm/results/$(date +%Y%m%d-%H%M%S).check-XXXX")
	say "kselftests in a VM (timeout ${VM_TIMEOUT} s), results in $res"
	"$RUN_SH" -t "$VM_TIMEOUT" -r "$res" "${VM_OPTS[@]}" -- \
		env "${env_args[@]}" "$GUEST_RUNNER" "${runner_args[@]}" 2>&1 |
		tee "$res/check-vm.log" || rc=${PIPESTATUS[0]}

	count_ksft "$res/check-vm.log"
	local during=${ksft_unfinished:+, during $ksft_unfinished}
	case $rc in
	0) ;;
	1) ((ksft_seen > 0)) || fail_one "vm: kselftest runner failed (exit 1)" ;;
	120) fail_one "vm: errors in the kernel log$during ($res/dmesg.txt)" ;;
	124) fail_one "vm: timeout after ${VM_TIMEOUT} s (MPDT_VM_TIMEOUT)$during ($res/vm-state.txt)" ;;
	125) fail_one "vm: guest crashed or did not boot$during ($res/console.log)" ;;
	*) fail_one "vm: run.sh exit $rc" ;;
	esac
}

main() {
	local mode=all only=
	while [[ $# -gt 0 ]]; do
		case $1 in
		--unit-only) mode=unit ;;
		--fuzz-only) mode=fuzz ;;
		--host-only) mode=host ;;
		--vm-only) mode=vm ;;
		--test)
			[[ $# -ge 2 ]] || usage
			mode=vm only=$2
			shift ;;
		--test=*) mode=vm only=${1#--test=} ;;
		*) usage ;;
		esac
		shift
	done

	[[ $mode != all && $mode != unit ]] || run_unit_tests
	[[ $mode != all && $mode != host ]] || run_host_checks
	[[ $mode != all && $mode != fuzz ]] || run_fuzz_targets
	[[ $mode != all && $mode != vm ]] || run_kselftests "$only"

	local name
	for name in "${failed_names[@]}"; do
		echo "FAILED: $name"
	done
	if ((passed + failed + skipped == 0)); then
		say "no tests ran"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
	((failed == 0 && passed + failed + skipped > 0))
}

main "$@"
