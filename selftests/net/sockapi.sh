#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sockapi.sh: runs sockapi (sockapi.c, kselftest harness) in a fresh netns
# over loopback with the module at its default parameters.  Each test of
# sockapi checks one behaviour of the socket API: EAGAIN, EMSGSIZE and
# SO_SNDBUF, truncation, zero-length messages, POLLIN/POLLOUT/POLLERR and
# epoll, names, connect/EDESTADDRREQ/EADDRINUSE, MPDT_INFO, SO_LINGER and
# close, ETIMEDOUT after a dead peer, SO_TXTIME and MSG_ERRQUEUE (an ETF
# qdisc on lo), receive buffer pressure, SO_RESERVE_MEM
# changed while messages arrive (in a memory cgroup it makes).  The close
# tests that read counters (close_drain, close_abandoned, conn_failed...)
# run in a netns of their own (unshare), where they set parameters and a
# netem delay on lo with mpdt(8) ($MPDT_CLI, exported here) and tc.
#
# Arguments are passed to sockapi (the 6.1 kselftest harness ignores them
# and always runs every test).

source "$(dirname "$0")/lib.sh"

require_root
KSFT_INC=$REPO_ROOT/build/ksrc/tools/testing/selftests
if [[ ! -x $SELFTEST_DIR/sockapi || $SELFTEST_DIR/sockapi.c -nt $SELFTEST_DIR/sockapi ]]; then
	[[ -r $KSFT_INC/kselftest_harness.h ]] ||
		skip "sockapi is not built and kselftest_harness.h is missing (make ksrc)"
fi
SOCKAPI=$(helper sockapi -I"$KSFT_INC")
require_cmd tc
MPDT_CLI=$(mpdt_cli_bin)
export MPDT_CLI
mpdt_load
modprobe -a sch_netem sch_etf dummy vrf 2>/dev/null || true
netns_add "$NS_A"
log "running $(basename "$SOCKAPI") in $NS_A"
rc=0
# "ip netns exec" mounts a sysfs of its own, without cgroup2, in a mount
# namespace of its own: reserve_mem_while_receiving needs cgroup2 there.
# shellcheck disable=SC2016 # expanded by that sh
ip netns exec "$NS_A" sh -c '[ -e /sys/fs/cgroup/cgroup.controllers ] ||
	mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
	exec "$0" "$@"' "$SOCKAPI" "$@" || rc=$?
declare -A S
snap "$NS_A" S
stats_show_nonzero S "netns"
exit "$rc"
