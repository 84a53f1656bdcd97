#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-kselftests.sh [NAME...]
#
# Runs INSIDE the test VM (run.sh), with the repository root as the current
# directory. Runs the kselftests listed in selftests/net/TESTS in order (or
# only the NAMEs given) and prints TAP 13 in the format of the kernel's
# kselftest runner:
#
#   TAP version 13
#   1..N
#   # selftests: net: NAME        header, then the test's output, '# '-prefixed
#   ok N selftests: net: NAME
#   ok N selftests: net: NAME # SKIP                  the test exited 4
#   not ok N selftests: net: NAME # exit=RC
#   not ok N selftests: net: NAME # TIMEOUT S seconds
#   not ok N selftests: net: NAME # missing           (or: # not executable)
#   not ok N selftests: net: NAME # dmesg (exit=RC)   the test made the kernel
#                                                     log bad lines (shown)
#
# TESTS format: one test per line, a path relative to the TESTS file's
# directory, optionally followed by " timeout=SECONDS". '#' starts a comment;
# blank lines are ignored.
# Timeout of a test, strongest first: $MPDT_KSFT_TIMEOUT (all tests), the
# "timeout=" after its name in TESTS, "timeout=N" in the directory's
# kselftest-style 'settings' file, 300 s.
#
# Each test runs in its own directory with stdin from /dev/null, with
# MPDT_ROOT set to the repository root (the directory this was started in).
#
# Environment:
#   MPDT_TESTS_FILE     the list (default selftests/net/TESTS)
#   MPDT_KSFT_TIMEOUT   per-test timeout override for every test (seconds)
# Exit: 0 if no test failed, 1 otherwise, 2 usage/setup error.

# No errexit: test failures are data here, every status is checked.
set -uo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly SCRIPT_DIR
# shellcheck source=tools/testing/vm/lib.sh
. "$SCRIPT_DIR/lib.sh"

readonly KSFT_SKIP=4
readonly DEFAULT_TIMEOUT=300
# Grace period between SIGTERM and SIGKILL for a test that timed out.
readonly KILL_AFTER=10

TESTS_FILE=${MPDT_TESTS_FILE:-selftests/net/TESTS}
TESTS_DIR=$(dirname "$TESTS_FILE")
SUITE=net   # the "net" of "selftests: net: NAME"

test_names=()
test_timeouts=()  # per-test timeout from TESTS, "" when none
failures=0

die() {
	echo "guest-kselftests.sh: $*" >&2
	exit 2
}

# This script loads kernel modules: refuse to run it on a host by accident.
check_in_vm() {
	if [[ ${MPDT_VM:-} != 1 && ${MPDT_ALLOW_HOST:-} != 1 ]]; then
		die "refusing to run outside the test VM (use tools/testing/check.sh," \
			"or set MPDT_ALLOW_HOST=1 if you really mean it)"
	fi
}

# Fill test_names/test_timeouts from the TESTS file.
read_tests_file() {
	local line name rest
	while IFS= read -r line || [[ -n $line ]]; do
		line=${line%%#*}
		read -r name rest <<<"$line" || true
		[[ -n ${name:-} ]] || continue
		test_names+=("$name")
		if [[ -z $rest ]]; then
			test_timeouts+=("")
		elif [[ $rest =~ ^timeout=([0-9]+)[[:space:]]*$ ]]; then
			test_timeouts+=("${BASH_REMATCH[1]}")
		else
			die "$TESTS_FILE: cannot parse '$line' (expected: NAME [timeout=SECONDS])"
		fi
	done <"$TESTS_FILE"
}

# The "timeout=" value of the kselftest 'settings' file, if any.
settings_timeout() {
	local settings=$TESTS_DIR/settings line
	[[ -r $settings ]] || return 0
	while IFS= read -r line; do
		if [[ $line =~ ^timeout=([0-9]+)[[:space:]]*$ ]]; then
			echo "${BASH_REMATCH[1]}"
		fi
	done <"$settings"
}

# select_tests [NAME...]: keep only the NAMEs asked for, in the order given.
# A NAME not in TESTS still runs if the file exists (handy while writing a
# new test), with the default timeout.
select_tests() {
	local -a names=() timeouts=()
	local want i found
	[[ $# -gt 0 ]] || return 0
	for want in "$@"; do
		found=0
		for i in "${!test_names[@]}"; do
			if [[ ${test_names[i]} == "$want" ]]; then
				names+=("$want")
				timeouts+=("${test_timeouts[i]}")
				found=1
				break
			fi
		done
		if [[ $found == 0 ]]; then
			echo "# note: $want is not listed in $TESTS_FILE"
			names+=("$want")
			timeouts+=("")
		fi
	done
	test_names=("${names[@]}")
	test_timeouts=("${timeouts[@]}")
}

# The kernel log since the marker line MARKER, in FILE. If the marker has
# rotated out of the (4 MiB) ring buffer, the whole log is used: better a
# false alarm than a missed oops.
dmesg_since() {
	local marker=$1 file=$2
	dmesg >"$file.all" 2>/dev/null || true
	awk -v m="$marker" '
		index($0, m) { n = 0; found = 1; next }
		{ buf[++n] = $0 }
		END { for (i = 1; i <= n; i++) print buf[i] }' "$file.all" >"$file"
	rm -f "$file.all"
}

# run_in_group TIMEOUT CMD...: run CMD under timeout(1), which gives it a
# process group of its own (pgid = timeout's pid) and signals that whole group
# on expiry. When CMD ends in time, helpers it left running in the group
# (a forgotten "server &") are killed too: they would otherwise hold the
# output pipe open and hang the runner, or disturb the next test.
run_in_group() {
	local tmo=$1 tpid rc=0
	shift
	timeout -k "$KILL_AFTER" "$tmo" "$@" &
	tpid=$!
	wait "$tpid" || rc=$?
	if kill -0 -- "-$tpid" 2>/dev/null; then
		echo "warning: killing processes the test left running:"
		pgrep -a -g "$tpid"
		kill -TERM -- "-$tpid" 2>/dev/null
		sleep 1
		kill -KILL -- "-$tpid" 2>/dev/null
	fi
	return "$rc"
}

# warn_leftover_netns BEFORE: name network namespaces the test created and
# did not delete; they often make the next test fail in confusing ways.
warn_leftover_netns() {
	local before=$1 after new
	after=$(ip netns list 2>/dev/null | sort)
	new=$(comm -13 <(echo "$before") <(echo "$after") | cut -d' ' -f1 | tr '\n' ' ')
	if [[ -n ${new// /} ]]; then
		echo "# warning: the test left network namespaces behind: $new"
	fi
}

# run_one NUM NAME TIMEOUT: run one test, print its TAP result line.
run_one() {
	local num=$1 name=$2 tmo=$3 path=$TESTS_DIR/$2 hdr marker rc=0 start
	local -a cmd
	local dlog netns_before
	hdr="selftests: $SUITE: $name"
	echo "# $hdr"
	if [[ ! -e $path ]]; then
		echo "# Warning: file $path is missing!"
		result "not ok" "$num" "$hdr # missing"
		return
	fi
	cmd=("./$(basename "$path")")
	if [[ ! -x $path ]]; then
		# Like kselftest: run it with its #! interpreter, but say so.
		echo "# Warning: file $path is not executable (chmod +x it)"
		if [[ $(head -c2 "$path") != '#!' ]]; then
			result "not ok" "$num" "$hdr # not executable"
			return
		fi
		read -r -a cmd < <(head -n1 "$path" | cut -c3-)
		cmd+=("./$(basename "$path")")
	fi
	# Line-buffered stdio in the test's C/coreutils children, so output
	# streams live through the pipe below instead of arriving in chunks.
	if command -v stdbuf >/dev/null; then
		cmd=(stdbuf -oL -eL "${cmd[@]}")
	fi

	marker="mpdt-kselftest: start $num $name"
	echo "$marker" >/dev/kmsg 2>/dev/null || true
	start=$SECONDS
	netns_before=$(ip netns list 2>/dev/null | sort)
	(cd "$(dirname "$path")" && run_in_group "$tmo" "${cmd[@]}") </dev/null 2>&1 |
		sed -u 's/^/# /' || rc=${PIPESTATUS[0]}
	echo "mpdt-kselftest: end $num $name rc=$rc" >/dev/kmsg 2>/dev/null || true
	warn_leftover_netns "$netns_before"

	dlog=$(mktemp)
	dmesg_since "$marker" "$dlog"
	if ! mpdt_dmesg_scan "$dlog" >"$dlog.bad"; then
		echo "# dmesg: the kernel logged errors during this test:"
		sed 's/^/# dmesg: /' "$dlog.bad"
		rm -f "$dlog" "$dlog.bad"
		result "not ok" "$num" "$hdr # dmesg (exit=$rc)"
		return
	fi
	rm -f "$dlog" "$dlog.bad"

	if [[ $rc == 0 ]]; then
		result "ok" "$num" "$hdr"
	elif [[ $rc == "$KSFT_SKIP" ]]; then
		result "ok" "$num" "$hdr # SKIP"
	elif [[ ($rc == 124 || $rc == 137) && $((SECONDS - start)) -ge $tmo ]]; then
		echo "#"
		result "not ok" "$num" "$hdr # TIMEOUT $tmo seconds"
	else
		result "not ok" "$num" "$hdr # exit=$rc"
	fi
}

# result "ok"|"not ok" NUM TEXT
result() {
	[[ $1 == ok ]] || failures=$((failures + 1))
	echo "$1 $2 $3"
}

main() {
	local i tmo default_tmo
	check_in_vm
	case ${1:-} in -h | --help)
		sed -n '3,/^$/s/^# \{0,1\}//p' "$0"
		exit 0 ;;
	esac
	if [[ -r $TESTS_FILE ]]; then
		read_tests_file
	elif [[ $# -eq 0 ]]; then
		echo "TAP version 13"
		echo "1..0 # SKIP no test list at $TESTS_FILE"
		exit 0
	fi
	select_tests "$@"

	default_tmo=$(settings_timeout)
	default_tmo=${default_tmo:-$DEFAULT_TIMEOUT}
	# TCG is slow; upstream net selftests loosen timing checks on this.
	export KSFT_MACHINE_SLOW=yes
	# Tests run in their own directory; this tells them where the tree is.
	MPDT_ROOT=$(pwd -P)
	export MPDT_ROOT

	echo "TAP version 13"
	echo "1..${#test_names[@]}"
	for i in "${!test_names[@]}"; do
		tmo=${MPDT_KSFT_TIMEOUT:-${test_timeouts[i]:-$default_tmo}}
		[[ $tmo =~ ^[0-9]+$ ]] || die "bad timeout '$tmo' for ${test_names[i]}"
		echo "# timeout set to $tmo"
		run_one "$((i + 1))" "${test_names[i]}" "$tmo"
	done
	[[ $failures == 0 ]]
	exit $?
}

main "$@"
