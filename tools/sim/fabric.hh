/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fabrics of the experiments: a two-tier leaf-spine and a three-tier
 * k-ary fat-tree of point-to-point links, every switch port a
 * SwitchQueue, every switch and host routing by hash-based ECMP over all
 * shortest paths.  Hosts are nodes 0 .. Hosts() - 1.
 */
#ifndef MPDT_SIM_FABRIC_H
#define MPDT_SIM_FABRIC_H

#include <ns3/ipv4-address.h>
#include <ns3/net-device-container.h>
#include <ns3/node-container.h>
#include <ns3/nstime.h>
#include <ns3/queue-disc-container.h>

#include <string>
#include <vector>

namespace mpdtsim
{

class EcmpRouting;

struct QueueConfig
{
    uint32_t maxBytes;
    uint32_t markMinBytes;
    uint32_t markMaxBytes;
    bool trim;
    uint16_t mpdtPort;
};

class Fabric
{
  public:
    /* @leaves x @perLeaf hosts at @hostBps, @spines at @fabricBps. */
    static Fabric LeafSpine(uint32_t leaves, uint32_t perLeaf, uint32_t spines,
                            uint64_t hostBps, uint64_t fabricBps, ns3::Time delay);
    /* k^3/4 hosts, k pods of k/2 edge and k/2 aggregation switches,
     * (k/2)^2 cores, every link at @bps.
     */
    static Fabric FatTree(uint32_t k, uint64_t bps, ns3::Time delay);

    /* Create the nodes, links, queues and routes. */
    void Build(const QueueConfig& q, uint64_t seed);
    /* After Build(): every switch routes MPDT's data by its tier's part
     * of the EV (EcmpRouting::SetEvPart), parts as wide as the most
     * uplinks a switch has.
     */
    void RouteByEvParts(uint16_t mpdtPort, uint16_t evBase);

    uint32_t Hosts() const;
    ns3::Ptr<ns3::Node> HostNode(uint32_t h) const;
    ns3::Ipv4Address HostAddr(uint32_t h) const;
    uint64_t HostBps() const;
    /* Propagation and one full packet's serialization per hop, one way. */
    ns3::Time OneWay(uint32_t from, uint32_t to, uint32_t mtu) const;
    /* Twice the longest OneWay() from host 0. */
    ns3::Time BaseRtt(uint32_t mtu) const;
    /* Links between switches that leave a host's first switch upward
     * (the uplinks a failure or a degradation hits), in build order.
     */
    std::vector<uint32_t> Uplinks() const;
    /* From now on @link drops every packet, both ways, unnoticed by
     * routing (REPS §5: a black hole until the control plane reacts).
     */
    void Fail(uint32_t link);
    /* @link runs at @fraction of its rate (PRIME §4: degraded links). */
    void Degrade(uint32_t link, double fraction);
    /* Every link loses each packet with probability @rate, both ways:
     * losses no queue explains (bit errors, a flaky optic).
     */
    void Lossy(double rate);
    /* Dropped by full queues, trimmed, lost on failed links, and lost
     * at random on lossy ones.
     */
    uint64_t Drops() const;
    uint64_t Trims() const;
    uint64_t BlackHoled() const;
    /* Of those, the packets that carried payload (DATA, TCP segments). */
    uint64_t BlackHoledData() const;
    uint64_t RandomLost() const;
    std::string Describe() const;

  private:
    struct Link
    {
        uint32_t a, b;
        uint64_t bps;
        ns3::Time delay;
        bool up; /* from an edge switch towards the core */
        ns3::NetDeviceContainer devs;
        ns3::Ipv4Address addr[2]; /* of a, of b */
        uint32_t iface[2];
    };

    struct Lost
    {
        uint64_t packets = 0;
        uint64_t data = 0; /* longer than any control packet */
    };

    /* @dev's receiver drops packets at @rate, counted in @lost. */
    static void SetReceiveLoss(ns3::Ptr<ns3::NetDevice> dev, double rate, Lost* lost);
    uint32_t AddLink(uint32_t a, uint32_t b, uint64_t bps, ns3::Time delay, bool up);
    /* Hops from every node to the nearest host of @from, through
     * switches only.
     */
    std::vector<uint32_t> Distances(const std::vector<uint32_t>& from) const;
    ns3::Ptr<EcmpRouting> RoutingOf(uint32_t node) const;
    void InstallRoutes(uint64_t seed);

    std::string m_name;
    uint32_t m_hosts = 0;
    uint32_t m_nodes = 0;
    uint64_t m_hostBps = 0;
    std::vector<Link> m_links;
    std::vector<std::vector<uint32_t>> m_adj; /* node -> links */
    ns3::NodeContainer m_nodeC;
    std::vector<ns3::Ipv4Address> m_hostAddr;
    ns3::QueueDiscContainer m_queues;
    Lost m_blackHoled;
    Lost m_randomLost;
};

} // namespace mpdtsim

#endif /* MPDT_SIM_FABRIC_H */
