#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh: garbage and forgeries on the MPDT UDP port of both ends while a
# transfer runs.  fuzz.py (which see) sniffs the transfer to learn its
# nonce, ports and PSNs, then sends short packets, bad versions, types,
# flags, ports, lengths and offsets, random garbage, SACKs/NACKs with wrong
# nonces or acknowledging PSNs never sent, DATA far outside the window,
# packets from and to unknown MPDT ports, a fake peer changing a message's
# length, replaying an old incarnation, sending a trimmed payload, and a
# flood of PROBEs from more MPDT ports than a socket may hold connections.
#
# Every drop counter of /proc/net/mpdt_stats must move exactly as much as
# fuzz.py predicts (at least as much where the transfer itself may add
# some), and the transfer must still deliver every message intact.
#
# Last, a fake peer starts 4000 16 MiB messages with one packet each on a
# socket with a small SO_RCVBUF: the receiver may not hold more than 16 MiB
# for that (fuzz.py --memory).
#
# Environment: MPDT_SEED, MPDT_FUZZ_COUNT (packets per class, default 10).

source "$(dirname "$0")/lib.sh"

COUNT=3000
MAX=1048576
K=${MPDT_FUZZ_COUNT:-10}

require_root
require_cmd ip python3
mpdt_load
setup_pair
mpdt_msg_bin >/dev/null
log "helpers ready"

declare -A A0 A1 B0 B1
snap "$NS_A" A0
snap "$NS_B" B0

bg python3 "$SELFTEST_DIR/fuzz.py" --ns-a "$NS_A" --ns-b "$NS_B" --dev-b "$VETH_B" \
	--seed "$MPDT_SEED" --count "$K" --ready "$WORKDIR/fuzz.ready" \
	>"$WORKDIR/fuzz.out" 2>&1
FUZZ_PID=$BG_PID
# The transfer starts once the fuzzer listens for it: however slow the
# guest, it cannot be over before the fuzzer saw it.
for ((i = 0; i < 600; i++)); do
	[[ -e $WORKDIR/fuzz.ready ]] && break
	nap 0.1
done
[[ -e $WORKDIR/fuzz.ready ]] || fail "the fuzzer did not start within 60 s"
log "fuzzer started (seed $MPDT_SEED, $K packets per class)"

run_transfer fuzzed "$COUNT" 1 "$MAX" 240
wait_for_pid "$FUZZ_PID" 120 || fail "the fuzzer hangs"
FUZZ_RC=$WAIT_RC
json_load F "$WORKDIR/fuzz.out" || { cat "$WORKDIR/fuzz.out"; fail "no result from fuzz.py"; }
log "fuzzer: sent $(jv F sent) in $(jv F seconds) s; sniffed $(jv F sniffed)"
[[ $(jv F alive_after) == true ]] ||
	fail "the transfer ended before the stateful fuzzing did (make it longer)"
[[ $FUZZ_RC == 0 ]] || { cat "$WORKDIR/fuzz.out"; fail "fuzz.py failed (exit $FUZZ_RC)"; }
log "the transfer stayed the same incarnation through the stateful fuzzing" \
	"(stateful phase $(jv F stateful_seconds) s)"

# Settle: late SACKs of the flood and the transfer.
sleep 1
snap "$NS_A" A1
snap "$NS_B" B1
stats_show_nonzero A1 "sender ($NS_A, after)"
stats_show_nonzero B1 "receiver ($NS_B, after)"

# Compare every expectation with the counters' growth.
for side in A B; do
	while read -r name want how; do
		if [[ $side == A ]]; then
			got=$(delta A1 A0 "$name")
		else
			got=$(delta B1 B0 "$name")
		fi
		# The transfer's own connection on each side.
		if [[ $name == conn_created ]]; then
			want=$((want + 1))
		fi
		if [[ $how == eq ]]; then
			[[ $got == "$want" ]] || {
				log "FAIL: $side $name grew by $got, expected exactly $want"
				echo "$side $name" >>"$WORKDIR/bad"
				continue
			}
			log "ok: $side $name +$got (exactly as sent)"
		else
			((got >= want)) || {
				log "FAIL: $side $name grew by $got, expected at least $want"
				echo "$side $name" >>"$WORKDIR/bad"
				continue
			}
			log "ok: $side $name +$got (>= $want)"
		fi
	done < <(python3 -c '
import json, sys
o = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
exp = o["expect"][sys.argv[2]]
if sys.argv[2] == "A":
    exp.setdefault("conn_created", [0, "eq"])
# Drops nobody caused must not have happened (but a slow receiver may
# refuse data for lack of buffer, a late packet may find its socket closed
# and a NACK may name a packet already declared lost).
for k in sys.argv[3].split():
    if k.startswith("drop_") and k not in exp and k not in (
            "drop_no_buffer", "drop_no_socket", "drop_bogus_ack"):
        exp[k] = [0, "eq"]
for k, (n, how) in sorted(exp.items()):
    print(k, n, how)
' "$WORKDIR/fuzz.out" "$side" "${!A1[*]}")
done

# Receiver memory: a peer that starts many large messages (one packet
# each) must not make the receiver hold memory beyond its SO_RCVBUF plus
# small bookkeeping.  Allowed here: 16 MiB for 4000 packets (4 KiB each).
MEMN=4000
python3 "$SELFTEST_DIR/fuzz.py" --ns-a "$NS_A" --ns-b "$NS_B" --dev-b "$VETH_B" \
	--memory "$MEMN" >"$WORKDIR/mem.out" 2>&1 || { cat "$WORKDIR/mem.out"; fail "fuzz.py --memory"; }
json_load MEM "$WORKDIR/mem.out" || fail "no result from fuzz.py --memory"
log "receiver memory: $MEMN packets each starting a 16 MiB message, SO_RCVBUF" \
	"$(jv MEM rcvbuf): held $(($(jv MEM held_bytes) >> 20)) MiB," \
	"$(($(jv MEM after_close_bytes) >> 20)) MiB after close"
if (($(jv MEM held_bytes) > 16 << 20)); then
	log "FAIL: receiver memory is not bounded by SO_RCVBUF"
	echo "receiver-memory" >>"$WORKDIR/bad"
fi

[[ ! -s $WORKDIR/bad ]] || fail "not as expected: $(tr '\n' ',' <"$WORKDIR/bad")"
pass "$COUNT messages intact through the fuzzing"
