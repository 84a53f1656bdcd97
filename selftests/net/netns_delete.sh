#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# netns_delete.sh: tear things down with traffic in flight, repeatedly, then
# check that nothing leaked: every MPDT socket freed (the module's refcount
# drops to 0, the "MPDT" slab cache is empty when it is not merged with
# another), rmmod succeeds, and the kernel log stays clean (no "still has
# objects" from kmem_cache_destroy, no splats; the VM runner checks dmesg
# too).
#
# Each round starts a transfer of large messages (up to 4 MiB) between two
# fresh netns and, mid-transfer, does one of:
#   del-ns-first   'ip netns del' both while the processes run, then kill them
#   kill-first     kill both processes, then delete the netns
#   kill-sender    kill the sender only (close without linger mid-message),
#                  then delete the netns
#   kill-receiver  kill the receiver only (the sender keeps retrying into
#                  drop_no_socket), then delete the netns
#   veth-del       delete the veth pair, then the netns
#   stopped-recv   SIGSTOP the receiver so its buffer fills (NACK NO_BUFFER),
#                  then delete everything
# Environment: MPDT_NETNS_ROUNDS (rounds per action, default 2).

source "$(dirname "$0")/lib.sh"

ROUNDS=${MPDT_NETNS_ROUNDS:-2}
ACTIONS=(del-ns-first kill-first kill-sender kill-receiver veth-del stopped-recv)

require_root
require_cmd ip
MARK="mpdt-netns_delete: start $$"
echo "$MARK" >/dev/kmsg 2>/dev/null || true
mpdt_load
MSG=$(mpdt_msg_bin)

# pids_of NS: processes in netns NS.
pids_of() {
	ip netns pids "$1" 2>/dev/null | tr '\n' ' '
}

round() {
	local action=$1 n=$2 rpid spid wait_ms
	setup_pair
	bg ip netns exec "$NS_B" "$MSG" recv -p 7500 -n 50 -m 65536 -M 4194304 \
		-s "$((MPDT_SEED + n))" -t 60 -r "$WORKDIR/ready.$n" >/dev/null 2>&1
	rpid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		[[ -e $WORKDIR/ready.$n ]] && break
		nap 0.1
	done
	bg ip netns exec "$NS_A" "$MSG" send -a "$ADDR_B" -p 7500 -n 50 -m 65536 \
		-M 4194304 -s "$((MPDT_SEED + n))" -t 60 >/dev/null 2>&1
	spid=$BG_PID
	# Somewhere in the middle of a message.
	wait_ms=$((300 + RANDOM % 1200))
	sleep "$((wait_ms / 1000)).$(printf '%03d' $((wait_ms % 1000)))"
	kill -0 "$spid" 2>/dev/null || log "  (round $n: the sender was already done)"

	{
	case $action in
	del-ns-first)
		ip netns del "$NS_A"
		ip netns del "$NS_B"
		kill -KILL "$rpid" "$spid" 2>/dev/null || true
		;;
	kill-first)
		kill -KILL "$rpid" "$spid" 2>/dev/null || true
		;;
	kill-sender)
		kill -KILL "$spid" 2>/dev/null || true
		nap 0.5
		;;
	kill-receiver)
		kill -KILL "$rpid" 2>/dev/null || true
		nap 0.5   # the sender retries into drop_no_socket
		;;
	veth-del)
		ip -n "$NS_A" link del "$VETH_A"
		nap 0.3
		;;
	stopped-recv)
		kill -STOP "$rpid" 2>/dev/null || true
		nap 1
		;;
	esac
	} 2>/dev/null
	# Whatever is left: kill (netns_del does) and delete.
	{
		netns_del "$NS_A"
		netns_del "$NS_B"
		wait "$rpid" "$spid" || true
	} 2>/dev/null
	log "round $n: $action after ${wait_ms} ms: torn down"
}

n=0
T0=$(now_us)
for ((r = 0; r < ROUNDS; r++)); do
	for action in "${ACTIONS[@]}"; do
		round "$action" "$n"
		n=$((n + 1))
	done
done
log "$n rounds in $(secs_since "$T0") s"

# Every socket must be freed: each holds a module reference until its
# (RCU-delayed) free.  Network namespaces are destroyed asynchronously.
for ((i = 0; i < 150; i++)); do
	refs=$(cat /sys/module/$MPDT_MOD/refcnt)
	[[ $refs == 0 ]] && break
	nap 0.2
done
assert_eq "module refcount once every process and netns is gone" 0 "$refs"
# Objects are freed after an RCU grace period: give them a moment.
for cache in "${MPDT_SLABS[@]}"; do
	for ((i = 0; i < 50; i++)); do
		objs=$(slab_objects "$cache")
		[[ -z $objs || $objs == 0 ]] && break
		nap 0.2
	done
	if [[ -n $objs ]]; then
		assert_eq "objects in the slab cache $cache" 0 "$objs"
	else
		log "note: no separate slab cache $cache (absent or merged): not checked"
	fi
done
mpdt_unload 30

# The kernel log since this test started.
dmesg | awk -v m="$MARK" 'index($0, m) { f = 1; next } f' >"$WORKDIR/dmesg"
if grep -E "still has objects|Objects remaining|MPDT|mpdt|BUG|WARNING|leak" "$WORKDIR/dmesg" |
	grep -vE "taints kernel|module verification failed" >"$WORKDIR/dmesg.bad"; then
	while read -r line; do log "dmesg: $line"; done <"$WORKDIR/dmesg.bad"
	fail "the kernel logged about MPDT / leaks during the test"
fi
log "ok: dmesg clean"
pass "$n rounds"
