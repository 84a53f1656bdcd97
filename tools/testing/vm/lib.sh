# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the MPDT test harness. Sourced (never executed) by
# run.sh on the host and by guest-kselftests.sh inside the VM, so that both
# judge kernel logs by the very same rules.

# ---------------------------------------------------------------------------
# Kernel log lines that make a run FAIL.
#
# Extended regular expressions (awk/grep -E syntax), matched case-sensitively
# against every line of dmesg. This array is the single place to edit the
# list; Documentation/testing.rst explains each entry.
#
# Deliberately absent:
#  - 'Call Trace' alone: dump_stack() callers such as allocation-failure
#    reports print one too. Every real splat below comes with its own header
#    line, and the trace is shown anyway as context of that header.
#  - 'taints kernel' / 'module verification failed': loading our unsigned
#    out-of-tree module taints the kernel; that is expected.
# ---------------------------------------------------------------------------
MPDT_DMESG_BAD_PATTERNS=(
	'Oops'                                  # oops header "Oops: 0002 [#1] SMP"
	': [0-9a-f]{4} \[#[0-9]+\]'             # any die() header: "invalid opcode: 0000 [#1]"
	'BUG:'                                  # NULL deref, sleeping in atomic, soft lockup, KASAN...
	'kernel BUG at'                         # BUG_ON()
	'WARNING:'                              # WARN_ON(), lockdep splats
	'general protection fault'
	'Kernel panic'
	'blocked for more than [0-9]+ seconds'  # hung task detector
	'soft lockup'
	'hard LOCKUP'
	'rcu: INFO:'                            # RCU stall warnings
	'self-detected stall'
	'detected stalls on CPU'
	'KASAN'
	'UBSAN'
	'refcount_t:'                           # refcount over/underflow
	'list_add corruption'                   # CONFIG_DEBUG_LIST
	'list_del corruption'
	'still has objects'                     # kmem_cache_destroy() of a leaking cache
	'Objects remaining'                     # SLUB's per-cache report of the same leak
	'unreferenced object'                   # kmemleak
	'BUG [^ ]+ \((Not tainted|Tainted)'     # any SLUB report: "BUG kmalloc-64 (Tainted: G  OE): ..."
	'Poison overwritten'                    # SLUB debug (slub_debug=FZPU,mpdt*)
	'Redzone'
	'Object already free'
	'Freepointer corrupt'
	'Bad page state'
	'unregister_netdevice: waiting for'     # leaked net_device reference
)

# Lines matching a bad pattern above but known to be harmless (ERE). Keep this
# empty unless a boot message of the test kernel itself trips the list.
MPDT_DMESG_IGNORE_PATTERNS=(
)

# Context printed around each offending line: a little before, enough after
# to include the call trace that follows a splat header.
MPDT_DMESG_CONTEXT_BEFORE=${MPDT_DMESG_CONTEXT_BEFORE:-3}
MPDT_DMESG_CONTEXT_AFTER=${MPDT_DMESG_CONTEXT_AFTER:-30}
MPDT_DMESG_MAX_LINES=${MPDT_DMESG_MAX_LINES:-400}

# mpdt_join_regex PATTERN... : print the patterns as one ERE alternation.
mpdt_join_regex() {
	local IFS='|'
	printf '%s' "$*"
}

# mpdt_dmesg_scan FILE
#   Print every line of FILE that matches a bad pattern (and no ignore
#   pattern), with context; offending lines are marked '>>'. Returns 1 if
#   anything was found, 0 if the log is clean, 2 if FILE is unreadable.
mpdt_dmesg_scan() {
	local file=$1 bad ign hits
	[[ -r $file ]] || return 2
	bad=$(mpdt_join_regex "${MPDT_DMESG_BAD_PATTERNS[@]}")
	ign=$(mpdt_join_regex "${MPDT_DMESG_IGNORE_PATTERNS[@]}")
	# GNU grep does the matching (full ERE, unlike mawk); awk only prints.
	# Prefixing the line number keeps ignore patterns anchored on content.
	hits=$(grep -nE -- "$bad" "$file" |
		{ if [[ -n $ign ]]; then grep -vE -- "$ign"; else cat; fi; } |
		cut -d: -f1 | tr '\n' ' ') || true
	[[ -n $hits ]] || return 0
	awk -v hits="$hits" \
	    -v before="$MPDT_DMESG_CONTEXT_BEFORE" \
	    -v after="$MPDT_DMESG_CONTEXT_AFTER" \
	    -v maxlines="$MPDT_DMESG_MAX_LINES" '
		BEGIN {
			k = split(hits, h, " ")
			for (i = 1; i <= k; i++) {
				hit[h[i]] = 1
				for (j = h[i] - before; j <= h[i] + after; j++)
					show[j] = 1
			}
		}
		(NR in show) {
			if (printed >= maxlines) {
				if (!trunc)
					print "   [... truncated, see the full log ...]"
				trunc = 1
				next
			}
			if (last && NR != last + 1)
				print "   --"
			printf "%s %s\n", ((NR in hit) ? ">>" : "  "), $0
			printed++; last = NR
		}' "$file"
	return 1
}
