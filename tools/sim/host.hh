/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An MPDT host in the model: the module's socket glue in miniature.  One
 * endpoint (engine) per peer, the UDP tunnel on the MPDT port with the
 * per-packet entropy as source port, the engine's timer as an ns-3
 * event, and the completion time of every message it receives.
 */
#ifndef MPDT_SIM_HOST_H
#define MPDT_SIM_HOST_H

#include "endpoint.h"

#include <ns3/ipv4-address.h>
#include <ns3/node.h>
#include <ns3/nstime.h>
#include <ns3/udp-l4-protocol.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>

namespace mpdtsim
{

/* A message delivered whole: who sent it, how big, when it arrived. */
using DeliverFn = std::function<void(ns3::Ipv4Address from, uint32_t len, ns3::Time at)>;

class Host
{
  public:
    Host(ns3::Ptr<ns3::Node> node, ns3::Ipv4Address addr, const msim_params* params,
         uint64_t seed, DeliverFn onDeliver);
    ~Host();
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    ns3::Ipv4Address Addr() const;
    /* Queue a message of @len bytes to @peer now. */
    void Send(ns3::Ipv4Address peer, uint32_t len);
    void AddCounts(msim_counts* c) const;
    /* Sent messages acknowledged and dropped (the peer failed). */
    uint64_t Acked() const;
    uint64_t Abandoned() const;

  private:
    struct Conn;

    Conn& ConnTo(ns3::Ipv4Address peer);
    void Receive(ns3::Ptr<ns3::Packet> p, ns3::Ipv4Header header, uint16_t sport,
                 ns3::Ptr<ns3::Ipv4Interface> iface);

    ns3::Ptr<ns3::Node> m_node;
    ns3::Ipv4Address m_addr;
    const msim_params* m_params;
    uint64_t m_seed;
    DeliverFn m_onDeliver;
    ns3::Ptr<ns3::UdpL4Protocol> m_udp;
    std::map<uint32_t, std::unique_ptr<Conn>> m_conns;
    uint64_t m_acked = 0;
    uint64_t m_abandoned = 0;
};

} // namespace mpdtsim

#endif /* MPDT_SIM_HOST_H */
