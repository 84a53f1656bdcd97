#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# load_unload.sh: module life cycle.
#  1. insmod/rmmod three times; each time the module must work (a socket,
#     /proc/net/mpdt_stats) and leave nothing behind.
#  2. Invalid module parameters are refused (insmod fails, no crash).
#  3. With an MPDT socket open (a python3 process holding one), rmmod must
#     fail with "in use" and leave a working module; once the socket is
#     closed rmmod must succeed.
#  4. Autoload: with the module installed where modprobe finds it, a plain
#     socket(AF_INET, SOCK_DGRAM, 254) loads it through the kernel's
#     net-pf-2-proto-254-type-2 request.  The test VM's root is read-only,
#     so the module is installed in a scratch tree (depmod -b) and the
#     kernel's modprobe helper is pointed at a wrapper for the duration;
#     skipped (with a note) where that cannot be arranged.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd python3 insmod rmmod
[[ -r $MPDT_KO ]] || skip "no module at $MPDT_KO (run 'make module')"

socket_works() {
	ip netns exec "$1" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 254)
s.bind(("127.0.0.1", 0))
s.close()'
}

# --- 1. load/unload cycles --------------------------------------------------
netns_add "$NS_A"
for i in 1 2 3; do
	mpdt_load
	socket_works "$NS_A" || fail "cycle $i: cannot use an MPDT socket"
	stat_get "$NS_A" msg_tx >/dev/null
	[[ -e /proc/net/mpdt_stats ]] || fail "cycle $i: no /proc/net/mpdt_stats in init_net"
	mpdt_unload
	[[ ! -e /proc/net/mpdt_stats ]] || fail "cycle $i: /proc/net/mpdt_stats left behind"
	if ip netns exec "$NS_A" python3 -c '
import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 254)' 2>/dev/null; then
		# Only possible if the system's modprobe autoloaded it again.
		mod_loaded || fail "cycle $i: MPDT socket without the module"
		_MOD_LOADED=1
		log "cycle $i: note: the system's modprobe autoloaded the module"
		mpdt_unload
	fi
	log "cycle $i: ok"
done

# --- 2. invalid parameters ------------------------------------------------
for bad in payload=10 payload=9000 rx_window=100 rx_window=32 rto_min_us=0 \
	"rto_min_us=2000 rto_max_us=1000" entropies=0 "entropy_base=65000 entropies=1000" \
	udp_port=0 udp_port=70000 "link_mbps=1 base_rtt_us=1"; do
	# shellcheck disable=SC2086 # several parameters per case
	if insmod "$MPDT_KO" $bad 2>"$WORKDIR/insmod.err"; then
		_MOD_LOADED=1
		fail "insmod accepted invalid parameters: $bad"
	fi
	mod_loaded && fail "module loaded after a failed insmod ($bad)"
	log "invalid parameters refused: $bad ($(tr -d '\n' <"$WORKDIR/insmod.err"))"
done

# --- 3. rmmod with an open socket -----------------------------------------
mpdt_load
bg ip netns exec "$NS_A" python3 "$SELFTEST_DIR/mpdt_peer.py" hold --port 9000 \
	--ready "$WORKDIR/held" --release "$WORKDIR/release" >"$WORKDIR/hold.out" 2>&1
HOLD_PID=$BG_PID
for ((i = 0; i < 300; i++)); do
	[[ -e $WORKDIR/held ]] && break
	kill -0 "$HOLD_PID" 2>/dev/null || { cat "$WORKDIR/hold.out"; fail "holder died"; }
	nap 0.1
done
[[ -e $WORKDIR/held ]] || fail "the socket holder did not come up"
refs=$(cat /sys/module/$MPDT_MOD/refcnt)
assert_ge "module refcount with 2 open sockets" 2 "$refs"
for try in 1 2; do
	if rmmod "$MPDT_MOD" 2>"$WORKDIR/rmmod.err"; then
		_MOD_LOADED=0
		fail "rmmod succeeded while an MPDT socket was open"
	fi
	mod_loaded || fail "module gone after a failed rmmod"
	log "rmmod refused while in use ($try): $(tr -d '\n' <"$WORKDIR/rmmod.err")"
	grep -qi "in use\|busy" "$WORKDIR/rmmod.err" ||
		fail "rmmod failed for another reason than 'in use'"
done
# The held sockets still work after the refused rmmod.
touch "$WORKDIR/release"
wait_for_pid "$HOLD_PID" 60 || fail "the socket holder hangs"
[[ $WAIT_RC == 0 ]] || { cat "$WORKDIR/hold.out"; fail "holder failed after the refused rmmod"; }
log "held sockets still worked after the refused rmmod, then closed"
mpdt_unload 10
log "rmmod succeeded once the sockets were closed"

# --- 4. autoload ----------------------------------------------------------
AUTOLOAD_FAILED=0
autoload() {
	local kver modroot helper_path old alias cli
	kver=$(uname -r)
	alias=$(modinfo -F alias "$MPDT_KO" 2>/dev/null | tr '\n' ' ')
	# inet_create() asks for net-pf-2-proto-254-type-2 (then
	# net-pf-2-proto-254): one of them must be an alias.
	if [[ " $alias " != *" net-pf-2-proto-254-type-2 "* &&
		" $alias " != *" net-pf-2-proto-254 "* ]]; then
		log "FAIL: the module has no alias the kernel asks for" \
			"(net-pf-2-proto-254-type-2), only: $alias"
		AUTOLOAD_FAILED=1
		return 0
	fi
	log "module alias: $alias"
	[[ -w /proc/sys/kernel/modprobe ]] || { log "note: autoload not tested: no /proc/sys/kernel/modprobe"; return 0; }
	command -v depmod >/dev/null || { log "note: autoload not tested: no depmod"; return 0; }
	# The kernel runs its modprobe helper in the root of PID 1.  In the VM
	# that is the initramfs, not our chroot: install a wrapper there that
	# chroots back into our root.  Outside the VM leave the system alone.
	if [[ ${MPDT_VM:-0} != 1 ]]; then
		log "note: autoload not tested outside the test VM (would change /proc/sys/kernel/modprobe)"
		return 0
	fi
	modroot=$WORKDIR/modroot
	mkdir -p "$modroot/lib/modules/$kver/extra"
	cp "$MPDT_KO" "$modroot/lib/modules/$kver/extra/mpdt.ko"
	# Its dependencies are loaded already; depmod only needs the alias.
	depmod -b "$modroot" "$kver" 2>"$WORKDIR/depmod.err" ||
		{ cat "$WORKDIR/depmod.err"; fail "depmod -b failed"; }
	grep -q "net-pf-2-proto-254-type-2 mpdt" "$modroot/lib/modules/$kver/modules.alias" ||
		fail "depmod did not record the alias"
	helper_path=/mpdt-modprobe-$$.sh
	if ! cat >"/proc/1/root$helper_path" 2>/dev/null <<-EOF
		#!/bin/sh
		# MPDT load_unload.sh autoload wrapper (removed by the test)
		echo "\$*" >>"/proc/$$/root$WORKDIR/modprobe.log"
		exec chroot /proc/$$/root /sbin/modprobe -d "$modroot" "\$@"
		EOF
	then
		log "note: autoload not tested: cannot write a helper in PID 1's root"
		return 0
	fi
	chmod +x "/proc/1/root$helper_path"
	old=$(cat /proc/sys/kernel/modprobe)
	on_cleanup "echo '$old' >/proc/sys/kernel/modprobe; rm -f '/proc/1/root$helper_path'"
	echo "$helper_path" >/proc/sys/kernel/modprobe

	cli=$(mpdt_cli_bin)
	mod_loaded && fail "module still loaded before the autoload check"
	ip netns exec "$NS_A" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 254)
s.bind(("127.0.0.1", 0))' || fail "socket() did not autoload the module" \
		"(modprobe calls: $(cat "$WORKDIR/modprobe.log" 2>/dev/null))"
	mod_loaded || fail "socket() worked but the module is not loaded?"
	_MOD_LOADED=1
	log "autoload: socket(AF_INET, SOCK_DGRAM, 254) loaded the module" \
		"(kernel asked: $(tr '\n' ';' <"$WORKDIR/modprobe.log"))"
	mpdt_unload 10
	# Asking for the genetlink family loads the module too.
	ip netns exec "$NS_A" "$cli" param show >"$WORKDIR/genl.out" 2>&1 ||
		fail "mpdt param show did not autoload the module:" \
			"$(cat "$WORKDIR/genl.out")"
	mod_loaded || fail "mpdt param show worked but the module is not loaded?"
	_MOD_LOADED=1
	log "autoload: mpdt param show loaded the module (genetlink family)"
	echo "$old" >/proc/sys/kernel/modprobe
	rm -f "/proc/1/root$helper_path"
	mpdt_unload 10
}
autoload

# A last cycle after all that, to be sure the module still loads cleanly.
mpdt_load
socket_works "$NS_A" || fail "final cycle: cannot use an MPDT socket"
mpdt_unload
[[ $AUTOLOAD_FAILED == 0 ]] || fail "autoload (see above)"
pass
