#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hostile.sh: hostile peers, a crashed client and bad parameters must not
# hurt MPDT (issue #9).  One case per attack, sent from plain UDP sockets in
# the guest (hostile.py, which see); each checks that the bound holds, that
# the attack is counted by reason in /proc/net/mpdt_stats, and that an
# honest transfer beside it completes intact (mpdt_msg, or a python
# receiver that checks mpdt_msg's messages byte for byte when the victim
# needs its own SO_RCVBUF):
#
#   evict       two DATA packets start two 16 MiB messages, never finished,
#               in a socket with a 4 MiB SO_RCVBUF, and a PROBE every 0.5 s
#               keeps them heard (they never expire): the first is admitted,
#               the second refused; an honest sender's first message finds
#               the socket full and the attacker's, behind its length per
#               reassembly time after the quiet time (1 s), is evicted
#               with its incarnation
#               (rx_msg_evicted 1, rx_msg_expired 0); its later packets
#               are refused (drop_stale_nonce); the honest sender completes
#   pressure    eight live senders of 1 MiB messages, over a link that
#               delays 20 ms, into a 2 MiB SO_RCVBUF that is read only
#               once they were refused: none is evicted (rx_msg_evicted
#               0), every message acknowledged and received once
#   quota       one peer starts eight 1 MiB messages: at most half of
#               SO_RCVBUF is admitted, the rest NACKed NO_BUFFER and counted
#               in drop_peer_quota (exactly, drop_no_buffer 0); evict's
#               attack on a 64 MiB SO_RCVBUF: the second 16 MiB message is
#               over quota; honest senders complete while those are held
#               (kept alive, nothing expires, the sockets have room: none
#               is evicted); a peer holding nothing starts one message of
#               3/4 SO_RCVBUF in an empty socket, its next one is over
#               quota
#   conn-evict  PROBEs from 512 + 64 MPDT ports of one address: it keeps
#               512 connections, evicting its own; then from 7 more
#               addresses x 512 ports and a 9th x 64: the socket keeps 4096
#               connections, evicts probe-only ones first (conn_evicted
#               exact, drop_conn_limit 0, every probe answered); then a new
#               honest peer transfers and the socket's own sendto() to a
#               new peer works
#   conn-full   512 peers of one address each hold a partial message: its
#               513th is refused (drop_conn_limit 1, conn_evicted 0); so is
#               the 4097th peer, once 8 addresses x 512 hold one (the last
#               a stranger's PROBE, heard after the others: not among the
#               64 least recently heard a peer's packet looks at); once
#               those expired, a new honest peer gets in
#   nonce       24 blind DATA/PROBE with new nonces from the honest sender's
#               address and MPDT port during its transfer (held open by
#               dropping its SACKs meanwhile), 6 at a time right after one
#               of its DATA: drop_new_nonce and tx_challenge exact,
#               drop_stale_nonce 0, the same incarnation goes on, intact;
#               the same peer restarting right after (a new incarnation)
#               gets through
#   not-host    DATA/PROBE to 10.0.0.255, 255.255.255.255, 224.0.0.1,
#               ff02::1: drop_not_host exact, none answered; then the
#               netns must still be freed (teardown, at the end)
#   broadcast-source  DATA/PROBE from 10.0.0.255 (rp_filter off):
#               drop_not_unicast exact, none answered
#   overlap     DATA of one message overlapping or misaligned under new PSNs:
#               drop_overlap exact, every message completes intact, none
#               with bytes never written
#   reply-port  DATA/PROBE/trimmed DATA with EVs up to 65535: the answer's
#               UDP source port is in [entropy-base, entropy-base +
#               entropies), never 0, the EV echoed unchanged
#   ipv6-csum   DATA over IPv6 with UDP checksum 0: Udp6InCsumErrors, MPDT's
#               rx_packets does not grow, no answer
#   crash       a client SIGKILLed in the middle of a 16 MiB message: two
#               other clients are served, the partial message expires
#   zero-len    zero-length messages with MSG_DONTWAIT to a peer that never
#               answers: EAGAIN once SO_SNDBUF is full (each costs >= 32 B)
#   params      mpdt param set link-mbps 1 base-rtt-us 1 (and each beside a
#               round value), rto-min-us above rto-max-us: exit 1, "Error:
#               ..." naming the rule, nothing changed (a small value beside
#               a measured 0 is accepted); then a smartt connection whose DATA
#               is CE-marked on the wire (tc pedit) gets CE-marked SACKs
#               and survives (dmesg is judged by the runner)
#  time-wait    a receiver closed right after a message answers a duplicate
#               of it with a SACK for the quiet time, and takes no new data
#   gso         UDP GSO bursts from a plain UDP socket (UDP_SEGMENT): taken
#               whole (rx_gso), each packet judged alone: a burst's messages
#               arrive intact, a stray port or version costs one packet
#               (drop_no_socket, drop_bad_version), a burst of 100 8-byte
#               packets is dropped whole (drop_short 100); a DATA with a
#               wrong UDP checksum counts in Udp InCsumErrors, not in MPDT;
#               held payloads are charged their pages, at most 9/16 of
#               SO_RCVBUF per peer, the rest copied
#   idle        with rto-max-us 31 s (a quiet time of 62 s) a connection idle
#               for 34 s is not collected (conn_expired 0): the sender's
#               next message, 100 KB in the same incarnation (its socket's
#               collector out of step with the receiver's) with rx-window
#               64, is acknowledged and received once
#   room        five peers start messages in a socket nobody reads: each
#               SACK's Room is its part of what the socket has left (rx.c
#               mpdt_rx_room()), split among the peers with messages in
#               progress, checked against SO_MEMINFO's rmem_alloc
#   incarnation a spoofed PROBE from an idle peer's address every 0.25 s
#               keeps a made-up incarnation of it live; the peer's next
#               message, a new incarnation, is challenged, proves itself
#               with the cookie (rx_nonce_proven 1) and arrives while the
#               spoofing goes on; the spoofs are then stale (IPv4, IPv6)
#   bound-dev   in a namespace of its own, joined to A by two links: a
#               socket bound to the second link's device takes messages by
#               it, and DATA/PROBE by the first link (IPv4, IPv6) are
#               dropped (drop_no_socket exact), unanswered, and open no
#               connection; the same with the device in a VRF and the
#               socket bound to the VRF
#
# Module parameter rto_max_us=500000: the nonce quiet time (2 x rto-max-us)
# is 1 s and partial messages expire within seconds (the cases wait for the
# counter, not for a time).  quota and nonce raise rto-max-us on both ends
# (every node uses the same value) so that their "while held" checks
# cannot race the timers; zero-len and nonce raise max-retries on the
# sending side.  Module parameter rx_steer=0: a case reads what each packet
# it sent did once the packet was counted received (rx_packets), and
# steering would count it before the CPU it was handed to has handled it
# (steer.sh tests steering).
#
# Environment: MPDT_SEED, MPDT_HOSTILE_CASES (space-separated subset).

source "$(dirname "$0")/lib.sh"

CASES=(evict pressure quota conn-evict conn-full nonce not-host overlap reply-port
	ipv6-csum crash zero-len params time-wait gso idle broadcast-source room
	incarnation bound-dev)
if [[ -n ${MPDT_HOSTILE_CASES:-} ]]; then
	read -r -a CASES <<<"$MPDT_HOSTILE_CASES"
fi

require_root
require_cmd ip tc ethtool python3

mpdt_load rto_max_us=500000 rx_steer=0
modprobe -a sch_ingress sch_netem cls_u32 act_gact act_pedit act_csum 2>/dev/null ||
	log "warning: cannot load the tc modules (crash, params and pressure need them)"
modprobe vrf 2>/dev/null || log "warning: cannot load vrf (bound-dev needs it)"
setup_pair
# The attacker's own address, on A's side, and its hosts for the
# connection caps (hostile.py's ADDR_HOSTS); IPv6 for not-host and ipv6-csum.
ip -n "$NS_A" addr add 10.0.0.3/24 dev "$VETH_A"
for i in $(seq 10 18); do
	ip -n "$NS_A" addr add "10.0.0.$i/24" dev "$VETH_A"
done
IPV6=1
if ip -n "$NS_A" addr add fd00::1/64 dev "$VETH_A" nodad 2>/dev/null &&
	ip -n "$NS_B" addr add fd00::2/64 dev "$VETH_B" nodad 2>/dev/null; then
	log "IPv6: fd00::1 <-> fd00::2"
else
	IPV6=0
	log "no IPv6: ff02::1 in not-host and the ipv6-csum case are left out"
fi
if [[ $IPV6 == 0 ]]; then
	for i in "${!CASES[@]}"; do
		[[ ${CASES[i]} == ipv6-csum ]] && unset 'CASES[i]'
	done
	CASES=("${CASES[@]}")
fi
MPDT_CLI=$(mpdt_cli_bin)
mpdt_msg_bin >/dev/null
log "helpers ready; seed $MPDT_SEED; cases: ${CASES[*]}"

# teardown_check: delete the netns and watch the kernel log for a device
# that cannot be unregistered.  A netns whose loopback stays referenced
# never finishes its cleanup, and every later netns deletion and rmmod
# (pernet_ops_rwsem) hangs behind it: fail here instead, and leave the
# module loaded rather than hang in rmmod.  (Seen: one IPv4 multicast
# datagram to the MPDT port makes UDP early demux cache its input route,
# which holds the netns' loopback, in the tunnel socket's sk_rx_dst; the
# socket is released by MPDT's pernet exit, which runs after the devices'
# exit that waits for that reference.)
teardown_check() {
	local before i now
	before=$(dmesg | grep -c 'unregister_netdevice: waiting for' || true)
	netns_del "$NS_A"
	netns_del "$NS_B"
	# The kernel says so after 10 s of waiting.
	for ((i = 0; i < 20; i++)); do
		nap 1
		now=$(dmesg | grep -c 'unregister_netdevice: waiting for' || true)
		if ((now > before)); then
			_MOD_LOADED=0
			log "FAIL: the netns cannot be freed: $(dmesg |
				grep 'unregister_netdevice: waiting for' | tail -n1)"
			SUB_FAILED+=(teardown)
			return 0
		fi
	done
	log "--- teardown: the netns were freed"
}

# One python runs every case (its start costs seconds under TCG); it
# prints a verdict per case and, last, the cases that failed.
rc=0
HOSTILE_T0=$EPOCHREALTIME python3 -S "$SELFTEST_DIR/hostile.py" "${CASES[@]}" \
	--ns-a "$NS_A" --ns-b "$NS_B" --dev-a "$VETH_A" --dev-b "$VETH_B" \
	--mpdt-msg "$MPDT_MSG" --cli "$MPDT_CLI" --workdir "$WORKDIR" \
	--seed "$MPDT_SEED" --ipv6 "$IPV6" | tee "$WORKDIR/hostile.out" || rc=$?
last=$(grep '^HOSTILE-FAILED:' "$WORKDIR/hostile.out" | tail -n1 || true)
if [[ -z $last ]]; then
	SUB_FAILED+=("hostile.py (exit $rc, no verdict)")
else
	read -r -a failed <<<"${last#HOSTILE-FAILED:}"
	SUB_FAILED+=("${failed[@]}")
fi
# A multicast packet once pinned the receiver's loopback for good.
[[ " ${CASES[*]} " == *" not-host "* ]] && teardown_check
sub_verdict "${#CASES[@]} cases"
