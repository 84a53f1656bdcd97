#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_permutation.sh - no message is lost silently (issue 9): on the
# emulated leaf-spine fabric (selftests/net/fabric.sh: 2 leaves x 4 hosts
# x 4 spines, 10 Mbit/s, 1 ms host delay) with the module's DEFAULTS (only
# the load balancing changes, per socket: MPDT_LB), back-to-back
# permutations in one module load, one round per policy (ecmp, oblivious,
# reps, prime), fresh sockets each round, the same receiver port every
# round:
#   every host sends ONE message (1-4 MiB, one of them 4 MiB) to its
#   partner on the other leaf (a new pairing each round) with one sendto(),
#   then shutdown(SHUT_WR) (waits until the message is acknowledged, or
#   fails with the pending error), SO_LINGER, close (mpdt_msg send -w);
#   every receiver verifies what it gets (length, content hash, index) and
#   keeps its socket open until every sender is done (mpdt_msg recv -x),
#   so that a second copy would be counted and the last SACKs answered.
# Asserted for every message:
#   the socket API rule (mpdt(7), "Closing"): it was delivered intact
#     exactly once, OR its sender was told (sendto, shutdown or SO_ERROR
#     failed) -- never neither, and never a duplicate or corrupt copy;
#   with the defaults, it was delivered, and its sender was told nothing
#     but success (every peer stays up and answers): no sender error,
#     conn_failed 0, and the counters agree exactly: msg_tx, msg_acked and
#     msg_rx each grew by 8 in the round.
# Nothing is timed: a round ends when every shutdown() has returned (a
# shutdown() still waiting after MPDT_PERM_TIMEOUT s is the "neither" case).
# Per round it prints each message's outcome with its sender's MPDT_INFO,
# and the counters (rto, retx_*, conn_failed, msg_*, and every drop_*,
# expiry or other counter that moved), per host and summed; on a violation
# also every host's connections (mpdt conn show) while the receivers were
# still open, and after 30 s if the senders were still running.
#
# Environment: MPDT_SEED (pairings, sizes, contents), MPDT_PERM_LBS
# (policies, one round each), MPDT_PERM_MIN / MPDT_PERM_MAX (message
# sizes, bytes), MPDT_PERM_TIMEOUT (seconds a shutdown() may wait).

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/fabric.sh"

LBS=${MPDT_PERM_LBS:-ecmp oblivious reps prime}
MIN_BYTES=${MPDT_PERM_MIN:-$((1 << 20))}
MAX_BYTES=${MPDT_PERM_MAX:-$((4 << 20))}
# A shutdown() that waits this long was neither acknowledged nor told of a
# failure: 5x the slowest round seen (17.7 s), 9x the time the defaults
# take to fail a silent peer (max_retries 8 + 1 timeouts of <= rto_max 1 s).
SEND_TMO=${MPDT_PERM_TIMEOUT:-90}
# Connections are shown (mpdt conn show) if a round runs longer than this.
SLOW_ROUND=30
PORT=7471
LEAVES=2
HOSTS=4
CLI="$REPO_ROOT/tools/mpdt/mpdt"

require_root
[[ -x $CLI ]] || skip "no $CLI (run 'make tools')"
# Module defaults: the window, RTO and retry limits the issue saw.
mpdt_load
fabric_create "$LEAVES" "$HOSTS" 4 10 1
fabric_cleanup_on_exit
MSG=$(mpdt_msg_bin)
NHOSTS=$((LEAVES * HOSTS))
log "module $MPDT_KO, md5 $(md5sum <"$MPDT_KO" | cut -c1-12)"
log "seed $MPDT_SEED; policies: $LBS; messages $MIN_BYTES..$MAX_BYTES B; port $PORT"

# Host k (0-based): h<L>-<I>, L = k / HOSTS + 1, I = k % HOSTS + 1.
declare -a H_NAME H_NS H_ADDR
for ((k = 0; k < NHOSTS; k++)); do
	H_NAME[k]=h$((k / HOSTS + 1))-$((k % HOSTS + 1))
	H_NS[k]=$(fabric_host $((k / HOSTS + 1)) $((k % HOSTS + 1)))
	H_ADDR[k]=$(fabric_addr $((k / HOSTS + 1)) $((k % HOSTS + 1)))
done

# wait_files WHAT FILE...: wait (up to 60 s) until every FILE exists.
wait_files() {
	local what=$1 f i
	shift
	for f in "$@"; do
		for ((i = 0; i < 600; i++)); do
			[[ -e $f ]] && break
			nap 0.1
		done
		[[ -e $f ]] || fail "$what: $f never appeared"
	done
}

# on_hosts DIR SUFFIX CMD...: run CMD in every host's netns at once,
# output to DIR/<k>.SUFFIX (one ip netns exec each costs ~0.3 s in TCG,
# several times that on a loaded machine); fails if any CMD failed.
on_hosts() {
	local dir=$1 suffix=$2 k failed=0
	local -a pids=()
	shift 2
	for ((k = 0; k < NHOSTS; k++)); do
		ip netns exec "${H_NS[k]}" "$@" >"$dir/$k.$suffix" 2>&1 &
		pids+=($!)
	done
	for k in "${pids[@]}"; do
		wait "$k" || failed=1
	done
	return "$failed"
}

# Every round's plan, WORKDIR/round<R>/plan: "k partner size seed" per
# sender; partners across the leaves, a new pairing each round; sizes
# log-uniform in [MIN, MAX], one message of MAX.  (One python for all:
# a process costs seconds on a loaded machine.)
plan_all() {
	python3 -c '
import math, os, random, sys
seed, rounds, hosts, lo, hi = (int(x) for x in sys.argv[1:6])
for rnd in range(1, rounds + 1):
    r = random.Random(seed * 1000 + rnd)
    sigma = list(range(hosts))
    r.shuffle(sigma)
    big = r.randrange(2 * hosts)
    d = os.path.join(sys.argv[6], "round%d" % rnd)
    os.makedirs(d)
    with open(os.path.join(d, "plan"), "w") as f:
        for k in range(2 * hosts):
            if k < hosts:
                partner = hosts + sigma[k]
            else:
                partner = sigma.index(k - hosts)
            size = int(math.exp(r.uniform(math.log(lo), math.log(hi))))
            if k == big:
                size = hi
            print(k, partner, min(max(size, lo), hi),
                  (seed + rnd * 64 + k) % (1 << 62) + 1, file=f)
' "$MPDT_SEED" "$1" "$HOSTS" "$MIN_BYTES" "$MAX_BYTES" "$WORKDIR"
}

# The judge of a round: reads the plan, the outputs and exit status of
# senders and receivers, the counters before and after; prints the
# outcome of every message and the counters; "VIOLATION ..." lines.
cat >"$WORKDIR/judge.py" <<'PY'
import json, os, sys

d, before, lb, nhosts = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
names = sys.argv[5:5 + nhosts]
plan = [l.split() for l in open(os.path.join(d, "plan"))]
EAGAIN = 11
viol = []

def last_json(path):
    try:
        objs = [json.loads(l) for l in open(path, errors="replace")
                if l.startswith("{")]
    except (OSError, ValueError):
        return None
    return objs[-1] if objs else None

def stats(path):
    out = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) == 2 and f[1].isdigit():
                out[f[0]] = int(f[1])
    except OSError:
        pass
    return out

def rc(path):
    try:
        return open(path).read().strip()
    except OSError:
        return "?"

delivered_all = 0
sent_ok = 0
for k, partner, size, seed in ((int(a), int(b), int(c), int(e))
                               for a, b, c, e in plan):
    s = last_json(os.path.join(d, "%d.send" % k)) or {}
    r = last_json(os.path.join(d, "%d.recv" % partner)) or {}
    src, rrc = rc(os.path.join(d, "%d.send.rc" % k)), \
        rc(os.path.join(d, "%d.recv.rc" % partner))
    got = r.get("received", 0)
    bad = r.get("duplicates", 0) + r.get("corrupt", 0) + r.get("truncated", 0)
    delivered = got == 1 and not bad
    err_from = s.get("error_from", "")
    told = bool(err_from)
    if s.get("sendto_errno", 1) == 0:
        sent_ok += 1
    delivered_all += delivered
    what = "%s -> %s %d B" % (names[k], names[partner], size)
    print("  %s: %s; sender exit %s: %s; receiver exit %s: received %d, "
          "duplicates %d, corrupt %d, truncated %d" % (
              what, "DELIVERED" if delivered else "NOT DELIVERED", src,
              ("error from %s (sendto errno %d, shutdown %d errno %d, "
               "SO_ERROR %d)" % (err_from, s.get("sendto_errno", -1),
                                 s.get("shutdown", -1),
                                 s.get("shutdown_errno", -1),
                                 s.get("so_error", -1)))
              if told else ("no error (shutdown %s errno %s)" % (
                  s.get("shutdown"), s.get("shutdown_errno"))),
              rrc, got, r.get("duplicates", 0), r.get("corrupt", 0),
              r.get("truncated", 0)))
    if s:
        print("    sender MPDT_INFO after shutdown: state %s, msgs "
              "acked/sent %s/%s inflight %s, una %s nxt %s, retx "
              "ooo/probe/rto/nack %s/%s/%s/%s, probes %s, rtos %s, "
              "sacks %s, nacks %s, bytes acked/sent %s/%s, srtt %s us, rto %s us, "
              "cwnd %s, lb %s; send %.3f s, shutdown %.3f s, close %.3f s"
              % (s.get("state"), s.get("msgs_acked"), s.get("msgs_sent"),
                 s.get("msgs_inflight"), s.get("snd_una"), s.get("snd_nxt"),
                 s.get("retx_ooo"), s.get("retx_probe"), s.get("retx_rto"),
                 s.get("retx_nack"), s.get("probes"), s.get("rtos"),
                 s.get("sacks"), s.get("nacks"), s.get("bytes_acked"), s.get("bytes_sent"),
                 s.get("srtt_us"), s.get("rto_us"), s.get("cwnd"),
                 s.get("lb"), s.get("send_seconds", 0),
                 s.get("shutdown_seconds", 0), s.get("close_seconds", 0)))
    else:
        viol.append("%s: the sender printed no result (exit %s)" % (what, src))
    if not r:
        viol.append("%s: the receiver printed no result (exit %s)"
                    % (what, rrc))
    # The socket API rule.
    if bad:
        viol.append("RULE %s: a copy was duplicated, corrupt or truncated"
                    % what)
    if not delivered and not told:
        viol.append("RULE %s: never delivered and its sender was never told "
                    "(sendto and shutdown returned %s)" % (
                        what, "0" if s.get("shutdown") == 0 else
                        "errno %s" % s.get("shutdown_errno")))
    # What the defaults must achieve.
    if not delivered:
        viol.append("DEFAULTS %s: not delivered" % what)
    if told:
        viol.append("DEFAULTS %s: its sender was told of a failure (%s) "
                    "although every peer stayed up" % (what, err_from))
    elif s.get("shutdown") != 0:
        viol.append("DEFAULTS %s: not acknowledged within the shutdown "
                    "timeout (errno %s)" % (what, s.get("shutdown_errno")))

# Counters: growth over the round, per host and summed.
keys = ["rto", "retx_ooo", "retx_probe", "retx_rto", "retx_nack",
        "conn_failed", "msg_tx", "msg_acked", "msg_rx"]
# Traffic volume: not printed per host.
quiet = {"tx_packets", "tx_bytes", "rx_packets", "rx_bytes", "tx_data",
         "rx_data", "tx_sack", "rx_sack", "tx_probe", "rx_probe"}

def others(dl):
    """Every other counter that moved: drops, expiries, evictions..."""
    return " ".join("%s=%d" % (n, v) for n, v in sorted(dl.items())
                    if v and n not in keys and n not in quiet)
tot = {}
for k in range(nhosts):
    b = stats(before % k)
    a = stats(os.path.join(d, "%d.after" % k))
    if not a or not b:
        viol.append("%s: no counters" % names[k])
        continue
    dl = {n: a[n] - b.get(n, 0) for n in a}
    for n, v in dl.items():
        tot[n] = tot.get(n, 0) + v
    o = others(dl)
    print("  %s: %s%s" % (names[k], " ".join(
        "%s=%d" % (n, dl.get(n, 0)) for n in keys), o and " " + o))
o = others(tot)
print("COUNTERS %s: %s%s" % (lb, " ".join(
    "%s=%d" % (n, tot.get(n, 0)) for n in keys), o and " " + o))
if tot.get("msg_tx", 0) != sent_ok:
    viol.append("counters: msg_tx grew by %d, %d sendto() succeeded"
                % (tot.get("msg_tx", 0), sent_ok))
for n in ("msg_acked", "msg_rx"):
    if tot.get(n, 0) != len(plan):
        viol.append("DEFAULTS counters: %s grew by %d, want %d"
                    % (n, tot.get(n, 0), len(plan)))
if tot.get("conn_failed", 0):
    viol.append("DEFAULTS counters: conn_failed grew by %d: a live peer "
                "was failed" % tot["conn_failed"])
print("DELIVERED %s: %d of %d" % (lb, delivered_all, len(plan)))
for v in viol:
    print("VIOLATION %s: %s" % (lb, v))
PY

VIOLATIONS=()
SUMMARY=()

# log_file FILE [INDENT]: log every line of FILE, one timestamp for all
# (log forks once per line: seconds per round on a loaded machine).
log_file() {
	local t line
	t=$(elapsed)
	while IFS= read -r line; do
		printf '[%6ss] %s%s\n' "$t" "${2:-}" "$line"
	done <"$1"
}

# round R LB: one permutation with policy LB.
round() {
	local rnd=$1 lb=$2 dir=$WORKDIR/round$1 k partner size seed t0 i line
	local -a spids=() rpids=() ready=() goready=() psize pseed ppartner
	local rc before all_in
	while read -r k partner size seed; do
		ppartner[k]=$partner
		psize[k]=$size
		pseed[k]=$seed
	done <"$dir/plan"
	log "round $rnd, lb $lb: $(while read -r k partner size seed; do
		printf '%s->%s %sB; ' "${H_NAME[k]}" "${H_NAME[partner]}" "$size"
	done <"$dir/plan")"
	# The counters before: the previous round's after (nothing else
	# runs in between), or read now.
	if ((rnd > 1)); then
		before=$WORKDIR/round$((rnd - 1))/%d.after
	else
		before=$dir/%d.before
		on_hosts "$dir" before cat /proc/net/mpdt_stats ||
			fail "no counters: $(cat "$dir"/*.before)"
	fi
	# Receivers: host partner(k) expects k's message, until $dir/stop.
	for ((k = 0; k < NHOSTS; k++)); do
		partner=${ppartner[k]}
		bg ip netns exec "${H_NS[partner]}" "$MSG" recv -b "$lb" -p "$PORT" -n 1 \
			-m "${psize[k]}" -M "${psize[k]}" -s "${pseed[k]}" \
			-t $((SEND_TMO + 60)) -r "$dir/$partner.ready" \
			-x "$dir/stop" >"$dir/$partner.recv" 2>&1
		rpids[partner]=$BG_PID
		ready+=("$dir/$partner.ready")
	done
	wait_files "round $rnd receivers" "${ready[@]}"
	# Senders: socket open, then all released together by $dir/go.
	for ((k = 0; k < NHOSTS; k++)); do
		partner=${ppartner[k]}
		bg ip netns exec "${H_NS[k]}" "$MSG" send -b "$lb" -w -L 10 -g "$dir/go" \
			-r "$dir/$k.go.ready" \
			-a "${H_ADDR[partner]}" -p "$PORT" -n 1 -m "${psize[k]}" \
			-M "${psize[k]}" -s "${pseed[k]}" -t "$SEND_TMO" \
			>"$dir/$k.send" 2>&1
		spids[k]=$BG_PID
		goready+=("$dir/$k.go.ready")
	done
	# Every sender has its socket open: release them together.
	wait_files "round $rnd senders" "${goready[@]}"
	t0=$(now_us)
	: >"$dir/go"
	# A slow round: every host's connections while the senders still
	# have theirs.
	for ((k = 0; k < NHOSTS; k++)); do
		while kill -0 "${spids[k]}" 2>/dev/null; do
			if [[ ! -e $dir/0.slow && $(now_us) -gt $((t0 + SLOW_ROUND * 1000000)) ]]; then
				log "round $rnd: senders still running after $SLOW_ROUND s"
				on_hosts "$dir" slow "$CLI" conn show || true
			fi
			nap 0.5
		done
	done
	all_in=1
	for ((k = 0; k < NHOSTS; k++)); do
		rc=0
		bg_wait "${spids[k]}" || rc=$?
		echo "$rc" >"$dir/$k.send.rc"
		((rc == 0)) || all_in=0
	done
	log "round $rnd, lb $lb: every sender returned after $(secs_since "$t0") s"
	# Unless every sender succeeded and every receiver has its message
	# (a receiver prints its JSON line when it is in; give it 2 s):
	# the connections of the receivers, still open, for the report.
	for ((i = 0; all_in && i < 20; i++)); do
		for ((k = 0; k < NHOSTS; k++)); do
			line=
			read -r line <"$dir/$k.recv" || true
			[[ $line == *'"received": 1,'* ]] || break
		done
		((k == NHOSTS)) && break
		nap 0.1
	done
	((i < 20)) || all_in=0
	((all_in)) || on_hosts "$dir" conns "$CLI" conn show || true
	: >"$dir/stop"
	for ((k = 0; k < NHOSTS; k++)); do
		rc=0
		bg_wait "${rpids[k]}" || rc=$?
		echo "$rc" >"$dir/$k.recv.rc"
	done
	on_hosts "$dir" after cat /proc/net/mpdt_stats ||
		fail "no counters: $(cat "$dir"/*.after)"
	python3 "$WORKDIR/judge.py" "$dir" "$before" "$lb" "$NHOSTS" "${H_NAME[@]}" \
		>"$dir/judge" 2>&1 || fail "judge failed: $(cat "$dir/judge")"
	log_file "$dir/judge"
	if grep -q '^VIOLATION' "$dir/judge"; then
		mapfile -t -O "${#VIOLATIONS[@]}" VIOLATIONS < <(grep '^VIOLATION' "$dir/judge")
		for ((k = 0; k < NHOSTS; k++)); do
			if [[ -e $dir/$k.slow ]]; then
				log "round $rnd ${H_NAME[k]} connections after $SLOW_ROUND s:"
				log_file "$dir/$k.slow" "  "
			fi
			log "round $rnd ${H_NAME[k]} connections (receiver open):"
			[[ ! -e $dir/$k.conns ]] || log_file "$dir/$k.conns" "  "
			log "round $rnd ${H_NAME[k]} stderr of sender/receiver:" \
				"$(grep -hv '^{' "$dir/$k.send" "$dir/$k.recv" | tr '\n' ' ')"
		done
	fi
	SUMMARY+=("$(grep -h '^COUNTERS\|^DELIVERED' "$dir/judge" | tr '\n' ' ')")
}

rnd=0
plan_all "$(wc -w <<<"$LBS")" || fail "no plan"
for lb in $LBS; do
	rnd=$((rnd + 1))
	round "$rnd" "$lb"
done

log "summary (seed $MPDT_SEED):"
for line in "${SUMMARY[@]}"; do
	log "  $line"
done
if ((${#VIOLATIONS[@]})); then
	for line in "${VIOLATIONS[@]}"; do
		log "$line"
	done
	fail "${#VIOLATIONS[@]} violation(s) in $rnd rounds (seed $MPDT_SEED)"
fi
log "ok: $rnd rounds x $NHOSTS messages, every message delivered intact" \
	"exactly once, every sender told success, counters exact"
pass
