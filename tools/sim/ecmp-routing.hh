/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hash-based ECMP for the model's switches and hosts: every packet of a
 * 5-tuple takes the same next hop, and a new UDP source port (MPDT's
 * entropy) may take another, as in a data-centre switch.  ns-3's global
 * routing only offers per-packet random ECMP, which would spray TCP too.
 * The fabric builder fills the tables (shortest paths, fabric.cc).
 *
 * Optionally a switch routes MPDT's packets as PRIME §III-D assumes: the
 * entropy value (the source port less the first entropy's port) is a
 * multi-part EV, and the switch takes its part, @bits wide at part
 * @part (its tier: 0 at the hosts' switches), as the index of its next
 * hop among its uplinks.  Other packets are hashed as before.
 */
#ifndef MPDT_SIM_ECMP_ROUTING_H
#define MPDT_SIM_ECMP_ROUTING_H

#include <ns3/ipv4-routing-protocol.h>
#include <ns3/ipv4.h>

#include <unordered_map>
#include <vector>

namespace mpdtsim
{

class EcmpRouting : public ns3::Ipv4RoutingProtocol
{
  public:
    static ns3::TypeId GetTypeId();

    /* One equal-cost way to a destination: the interface and the
     * neighbour's address on it.
     */
    struct Hop
    {
        uint32_t iface;
        ns3::Ipv4Address gateway;
    };

    /* @salt decorrelates the switches' hashes (no polarization). */
    void SetSalt(uint64_t salt);
    void AddRoute(ns3::Ipv4Address dst, Hop hop);
    /* For destinations without a route (a host's uplink). */
    void AddDefault(Hop hop);
    /* Route MPDT data (UDP to @mpdtPort) by EV part @part, @bits wide. */
    void SetEvPart(uint16_t mpdtPort, uint16_t evBase, uint32_t bits, uint32_t part);

    ns3::Ptr<ns3::Ipv4Route> RouteOutput(ns3::Ptr<ns3::Packet> p,
                                         const ns3::Ipv4Header& header,
                                         ns3::Ptr<ns3::NetDevice> oif,
                                         ns3::Socket::SocketErrno& sockerr) override;
    bool RouteInput(ns3::Ptr<const ns3::Packet> p,
                    const ns3::Ipv4Header& header,
                    ns3::Ptr<const ns3::NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t interface) override;
    void NotifyInterfaceDown(uint32_t interface) override;
    void NotifyAddAddress(uint32_t interface, ns3::Ipv4InterfaceAddress address) override;
    void NotifyRemoveAddress(uint32_t interface, ns3::Ipv4InterfaceAddress address) override;
    void SetIpv4(ns3::Ptr<ns3::Ipv4> ipv4) override;
    void PrintRoutingTable(ns3::Ptr<ns3::OutputStreamWrapper> stream,
                           ns3::Time::Unit unit) const override;

  private:
    /* The hop for this packet's 5-tuple, or nullptr. */
    const Hop* Choose(ns3::Ptr<const ns3::Packet> p, const ns3::Ipv4Header& header) const;
    /* Its EV part picks among @hops, if the packet is MPDT data. */
    const Hop* ChooseByEv(const uint8_t ports[4], const ns3::Ipv4Header& header,
                          const std::vector<Hop>& hops) const;
    ns3::Ptr<ns3::Ipv4Route> MakeRoute(const Hop& hop, const ns3::Ipv4Header& header) const;

    ns3::Ptr<ns3::Ipv4> m_ipv4;
    uint64_t m_salt = 0;
    uint16_t m_mpdtPort = 0;
    uint16_t m_evBase = 0;
    uint32_t m_evBits = 0; /* 0: hash MPDT's packets too */
    uint32_t m_evPart = 0;
    std::unordered_map<uint32_t, std::vector<Hop>> m_routes;
    std::vector<Hop> m_default;
};

} // namespace mpdtsim

#endif /* MPDT_SIM_ECMP_ROUTING_H */
