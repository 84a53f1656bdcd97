#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_spread.sh - the benchmark of the kselftests' measurements: runs
# kselftests (by default the fabric ones) RUNS times each, in the test VM
# as root, and prints tools/perf/spread.py's table: per measured quantity
# the values, their run-to-run spread, the margin of what a test asserts
# (Documentation/testing.rst, "Determinism": at least twice the spread),
# and the papers' targets the tests no longer assert (met in k of n runs).
# spread.py also writes DIR/spread.json, and tools/perf/figures.py the
# packets per spine the tests log as DIR/spines-TEST.png (skipped with a
# warning without matplotlib).
#
#   make all && tools/testing/vm/run.sh -t 7200 -- tools/perf/fabric_spread.sh -n 3
#
# Options: -n RUNS (default 3), -o DIR (logs; default
# $MPDT_RESULTS_DIR/spread or /tmp/spread); then test names (default:
# fabric_trim.sh fabric_spray.sh fabric_adapt.sh fabric_cc.sh
# fabric_selftest.sh).  A test that fails is reported and the runs go on.
# Exit status: spread.py's (1 if an asserted threshold is missed or too
# close to the values), or 1 if a test failed.
set -uo pipefail

PERF_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$PERF_DIR/../.." && pwd)
RUNS=3
OUT=${MPDT_RESULTS_DIR:-/tmp}/spread

while getopts n:o: opt; do
	case $opt in
	n) RUNS=$OPTARG ;;
	o) OUT=$OPTARG ;;
	*) sed -n '3,/^set /s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
TESTS=("$@")
((${#TESTS[@]})) || TESTS=(fabric_trim.sh fabric_spray.sh fabric_adapt.sh fabric_cc.sh fabric_selftest.sh)
mkdir -p "$OUT" || exit 1

failed=()
cd "$REPO/selftests/net" || exit 1
for ((r = 1; r <= RUNS; r++)); do
	for t in "${TESTS[@]}"; do
		log=$OUT/${t%.sh}.$r.log
		echo "[$(date +%T)] run $r/$RUNS: $t (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
		if MPDT_ROOT=$REPO KSFT_MACHINE_SLOW=yes timeout 1200 "./$t" </dev/null >"$log" 2>&1; then
			echo "[$(date +%T)]   ok" >&2
		else
			echo "[$(date +%T)]   FAILED: $(grep -m1 'FAIL' "$log")" >&2
			failed+=("$t#$r")
		fi
	done
done
rm -f "$OUT/spread.json"
python3 "$PERF_DIR/spread.py" --json "$OUT/spread.json" "$OUT"/*.log
rc=$?
if [[ -s $OUT/spread.json ]]; then
	python3 "$PERF_DIR/figures.py" auto "$OUT/spread.json" ||
		echo "warning: tools/perf/figures.py failed (exit $?): figures missing (python3-matplotlib installed?)" >&2
fi
if ((${#failed[@]})); then
	echo "failed runs: ${failed[*]}"
	rc=1
fi
exit "$rc"
