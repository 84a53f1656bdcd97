#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# watchdog-check.sh - a VM that outlives run.sh's timeout ends with exit
# 124 and leaves each vCPU's registers in vm-state.txt (vm-watchdog.py).

set -u

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
rc=0
"$(dirname "$0")/run.sh" -q -c 2 -t 15 -r "$dir" -- 'sleep 600' \
	>"$dir/run.log" 2>&1 || rc=$?
if [[ $rc != 124 ]]; then
	cat "$dir/run.log"
	echo "watchdog-check: run.sh exited $rc, not 124"
	exit 1
fi
for cpu in 0 1; do
	if ! grep -A5 -x "CPU#$cpu" "$dir/vm-state.txt" 2>/dev/null |
			grep -q "^RIP="; then
		echo "watchdog-check: no registers of CPU#$cpu in vm-state.txt"
		exit 1
	fi
done
echo "watchdog-check: timed out as asked, both vCPUs' state saved"
