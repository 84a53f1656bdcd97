/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A switch egress queue as the papers model it: a FIFO of MaxBytes; ECN
 * marking at dequeue, RED-like on the queue left behind: never below
 * MarkMinBytes, always above MarkMaxBytes, with a probability rising
 * linearly in between (STrack §4.1: 25%/75% of a BDP; SMaRTT §4: 20%/80%
 * of the queue; equal thresholds make DCTCP's step); and optionally
 * packet trimming (an MPDT DATA packet that would overflow loses its
 * payload and goes ahead of the data in a priority queue: SMaRTT §3.3).
 * Control packets (MPDT's SACKs and NACKs, TCP's pure ACKs) use that
 * queue too unless ControlFirst is false: SMaRTT-REPS §3 (after EQDS)
 * gives every port a high-priority queue for trims and ACKs, and a host's
 * NIC is such a port (MPDT sends them at TC_PRIO_CONTROL).  Probes stay
 * in the FIFO: their answers declare lost what they overtook.
 */
#ifndef MPDT_SIM_SWITCH_QUEUE_H
#define MPDT_SIM_SWITCH_QUEUE_H

#include <ns3/queue-disc.h>
#include <ns3/random-variable-stream.h>
#include <ns3/udp-header.h>

namespace mpdtsim
{

class SwitchQueue : public ns3::QueueDisc
{
  public:
    static ns3::TypeId GetTypeId();
    SwitchQueue();

    /* Packets trimmed and dropped, for the experiments' tables. */
    uint64_t Trimmed() const;
    uint64_t Dropped() const;

  private:
    bool DoEnqueue(ns3::Ptr<ns3::QueueDiscItem> item) override;
    ns3::Ptr<ns3::QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;
    /* Whether a packet leaving @queued bytes behind is marked. */
    bool MarkAt(uint32_t queued);
    /* @item's MPDT payload into @buf (at most @size bytes) and its UDP
     * header into @udp; its length, or 0 if @item is no MPDT packet.
     */
    uint32_t MpdtPayload(ns3::Ptr<ns3::QueueDiscItem> item, ns3::UdpHeader* udp,
                         uint8_t* buf, uint32_t size) const;
    /* Whether @item goes to the control queue (ControlFirst). */
    bool IsControl(ns3::Ptr<ns3::QueueDiscItem> item) const;
    /* @item cut to its MPDT header, or nullptr if it is no MPDT DATA. */
    ns3::Ptr<ns3::QueueDiscItem> Trim(ns3::Ptr<ns3::QueueDiscItem> item) const;

    uint32_t m_maxBytes;
    uint32_t m_markMin;
    uint32_t m_markMax;
    ns3::Ptr<ns3::UniformRandomVariable> m_rng;
    bool m_trim;
    bool m_controlFirst;
    uint16_t m_mpdtPort;
    uint64_t m_trimmed = 0;
    uint64_t m_dropped = 0;
};

} // namespace mpdtsim

#endif /* MPDT_SIM_SWITCH_QUEUE_H */
