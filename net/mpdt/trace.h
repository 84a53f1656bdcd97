/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the connection engine and the packet path, for perf and
 * bpftrace (Documentation/design.rst, "Tracing"):
 *
 *   mpdt:mpdt_xmit      every packet handed to the UDP tunnel: MPDT
 *                       ports, and the PSN it names (DATA's, a SACK's
 *                       EPSN, a NACK's PSN, a PROBE's SACK base)
 *   mpdt:mpdt_sack      a SACK processed: acked, lost, RTT, window after
 *   mpdt:mpdt_loss      a packet declared lost, with its cause
 *   mpdt:mpdt_rto       a retransmission timeout
 *   mpdt:mpdt_probe     a probe sent
 *   mpdt:mpdt_cwnd      the congestion window changed, and on what
 *   mpdt:mpdt_msg_acked a message wholly acknowledged, with its FCT
 *   mpdt:mpdt_msg_rcvd  a message delivered to the receiving application
 *   mpdt:mpdt_failed    the peer stopped answering
 *
 * A connection's sending half is named by its nonce (random per
 * incarnation, in every sender event); mpdt_xmit also gives its ports.
 *
 * The engine is pure core: in the userspace builds (unit tests, fuzzers)
 * each trace_*() below is an empty inline function.
 */
#if !defined(_MPDT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MPDT_TRACE_H

#include "engine.h"

#ifdef __KERNEL__
#include <linux/tracepoint.h>

#undef TRACE_SYSTEM
#define TRACE_SYSTEM mpdt
#else
#define TP_PROTO(...)	__VA_ARGS__
#define TP_ARGS(...)	__VA_ARGS__
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)	\
	static inline void trace_##name(proto) {}
#endif

TRACE_EVENT(mpdt_xmit,
	    TP_PROTO(const struct mpdt_pkt *pkt, u32 psn, u32 len),
	    TP_ARGS(pkt, psn, len),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, psn)
			     __field(u32, len)
			     __field(u16, lport)
			     __field(u16, rport)
			     __field(u16, ev)
			     __field(u8, type)
			     __field(u8, flags)),
	    TP_fast_assign(__entry->nonce = pkt->hdr.nonce;
			   __entry->psn = psn;
			   __entry->len = len;
			   __entry->lport = pkt->hdr.src_port;
			   __entry->rport = pkt->hdr.dst_port;
			   __entry->ev = pkt->hdr.ev;
			   __entry->type = pkt->hdr.type;
			   __entry->flags = pkt->hdr.flags;),
	    TP_printk("nonce=%08x %u->%u type=%u psn=%u ev=%u flags=0x%x len=%u",
		      __entry->nonce, __entry->lport, __entry->rport,
		      __entry->type, __entry->psn, __entry->ev, __entry->flags,
		      __entry->len)
);

TRACE_EVENT(mpdt_sack,
	    TP_PROTO(const struct mpdt_eng *e, u32 epsn, u32 acked, u32 lost, u64 rtt_ns),
	    TP_ARGS(e, epsn, acked, lost, rtt_ns),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, epsn)
			     __field(u32, acked)
			     __field(u32, lost)
			     __field(u64, rtt_ns)
			     __field(u32, cwnd)
			     __field(u64, inflight)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->epsn = epsn;
			   __entry->acked = acked;
			   __entry->lost = lost;
			   __entry->rtt_ns = rtt_ns;
			   __entry->cwnd = e->cc.cwnd;
			   __entry->inflight = mpdt_sb_inflight(&e->sb);),
	    TP_printk("nonce=%08x epsn=%u acked=%u lost=%u rtt_ns=%llu cwnd=%u inflight=%llu",
		      __entry->nonce, __entry->epsn, __entry->acked,
		      __entry->lost, __entry->rtt_ns, __entry->cwnd,
		      __entry->inflight)
);

TRACE_EVENT(mpdt_loss,
	    TP_PROTO(const struct mpdt_eng *e, u32 psn, u16 ev, u8 cause),
	    TP_ARGS(e, psn, ev, cause),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, psn)
			     __field(u16, ev)
			     __field(u8, cause)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->psn = psn;
			   __entry->ev = ev;
			   __entry->cause = cause;),
	    TP_printk("nonce=%08x psn=%u ev=%u cause=%s", __entry->nonce,
		      __entry->psn, __entry->ev,
		      __print_symbolic(__entry->cause,
				       { MPDT_RETX_OOO, "ooo" },
				       { MPDT_RETX_PROBE, "probe" },
				       { MPDT_RETX_RTO, "rto" },
				       { MPDT_RETX_NACK, "nack" }))
);

TRACE_EVENT(mpdt_rto,
	    TP_PROTO(const struct mpdt_eng *e),
	    TP_ARGS(e),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, una)
			     __field(u32, backoff)
			     __field(u32, stalled)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->una = e->sb.una;
			   __entry->backoff = e->sb.rto_backoff;
			   __entry->stalled = e->sb.stalled_rtos;),
	    TP_printk("nonce=%08x una=%u backoff=%u stalled=%u", __entry->nonce,
		      __entry->una, __entry->backoff, __entry->stalled)
);

TRACE_EVENT(mpdt_probe,
	    TP_PROTO(const struct mpdt_eng *e),
	    TP_ARGS(e),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, una)
			     __field(u32, nxt)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->una = e->sb.una;
			   __entry->nxt = e->sb.nxt;),
	    TP_printk("nonce=%08x una=%u nxt=%u", __entry->nonce, __entry->una,
		      __entry->nxt)
);

TRACE_EVENT(mpdt_cwnd,
	    TP_PROTO(const struct mpdt_eng *e, u32 old, u8 type),
	    TP_ARGS(e, old, type),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, old)
			     __field(u32, cwnd)
			     __field(u8, type)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->old = old;
			   __entry->cwnd = e->cc.cwnd;
			   __entry->type = type;),
	    TP_printk("nonce=%08x cwnd=%u old=%u on=%s", __entry->nonce,
		      __entry->cwnd, __entry->old,
		      __print_symbolic(__entry->type,
				       { MPDT_T_SACK, "sack" },
				       { MPDT_T_NACK, "nack" },
				       { 0, "rto" }))
);

TRACE_EVENT(mpdt_msg_acked,
	    TP_PROTO(const struct mpdt_eng *e, const struct mpdt_eng_txmsg *m, u64 fct_ns),
	    TP_ARGS(e, m, fct_ns),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, id)
			     __field(u32, len)
			     __field(u64, fct_ns)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->id = m->id;
			   __entry->len = m->len;
			   __entry->fct_ns = fct_ns;),
	    TP_printk("nonce=%08x id=%u len=%u fct_ns=%llu", __entry->nonce,
		      __entry->id, __entry->len, __entry->fct_ns)
);

TRACE_EVENT(mpdt_msg_rcvd,
	    TP_PROTO(const struct mpdt_eng *e, const struct mpdt_reasm *ra),
	    TP_ARGS(e, ra),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, id)
			     __field(u32, len)),
	    TP_fast_assign(__entry->nonce = e->rx_nonce;
			   __entry->id = ra->id;
			   __entry->len = ra->len;),
	    TP_printk("peer_nonce=%08x id=%u len=%u", __entry->nonce,
		      __entry->id, __entry->len)
);

TRACE_EVENT(mpdt_failed,
	    TP_PROTO(const struct mpdt_eng *e),
	    TP_ARGS(e),
	    TP_STRUCT__entry(__field(u32, nonce)
			     __field(u32, una)
			     __field(u32, msgs)),
	    TP_fast_assign(__entry->nonce = e->nonce;
			   __entry->una = e->sb.una;
			   __entry->msgs = e->msgs_inflight;),
	    TP_printk("nonce=%08x una=%u msgs_dropped=%u", __entry->nonce,
		      __entry->una, __entry->msgs)
);

#endif /* _MPDT_TRACE_H */

#ifdef __KERNEL__
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
#endif
