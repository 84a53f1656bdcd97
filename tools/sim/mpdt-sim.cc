// SPDX-License-Identifier: GPL-2.0
/*
 * mpdt-sim: one experiment run of the ns-3 model.  Builds a fabric, puts
 * an MPDT host (the module's engine) or ns-3's DCTCP on every host, runs
 * one traffic pattern to completion or a deadline, and prints one JSON
 * object: the flow completion times over ideal and the counters.
 * tools/sim/experiments.py runs the papers' experiments with it.
 */
#include "endpoint.h"
#include "fabric.hh"
#include "host.hh"

#include <ns3/applications-module.h>
#include <ns3/core-module.h>
#include <ns3/internet-module.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using namespace mpdtsim;

namespace
{

const uint16_t TCP_PORT = 5000;
/* What one MPDT DATA packet puts on a link: the largest of a run. */
const uint32_t WIRE_MTU = 1500;

struct Options
{
    std::string experiment = "adhoc";
    std::string topo = "leafspine";
    uint32_t leaves = 4, perLeaf = 8, spines = 4, k = 4;
    double hostGbps = 100, fabricGbps = 0;
    double delayUs = 1;
    std::string pattern = "permutation";
    uint32_t senders = 8;
    uint32_t flows = 0; /* 0: every flow of the pattern */
    uint32_t msgBytes = 1 << 20;
    std::string transport = "mpdt";
    std::string label;
    std::vector<std::pair<std::string, std::string>> sets;
    /* Switch ports, in BDPs of the longest path (STrack §4.1). */
    double queueBdp = 5, kminPct = 25, kmaxPct = 75;
    bool trim = false;
    bool evParts = false; /* switches route MPDT by EV part (PRIME §III-D) */
    uint32_t fail = 0, degrade = 0;
    double failAtUs = 0, degradeFrac = 0.5;
    double lossPct = 0; /* on every link, each way */
    uint64_t seed = 1;
    double deadlineMs = 0;
    std::string fctOut; /* per-flow lines, for CDFs */
};

struct Flow
{
    uint32_t src, dst, bytes;
    Time ideal;
    Time done;
    uint64_t rcvd = 0;
};

/* Exit 2 saying @why, or 0 for --help (@why nullptr). */
[[noreturn]] void
Usage(const char* why)
{
    if (why)
        std::cerr << "mpdt-sim: " << why << "\n";
    (why ? std::cerr : std::cout)
        << "usage: mpdt-sim [--experiment NAME] [--topo leafspine|fattree]"
                 " [--leaves N --per-leaf N --spines N | --k N] [--host-gbps G]"
                 " [--fabric-gbps G] [--delay-us D] [--pattern permutation|alltoall|cross|incast]"
                 " [--senders N] [--flows N] [--msg-bytes B] [--transport mpdt|dctcp] [--label L]"
                 " [--set NAME=VALUE]... [--queue-bdp B] [--kmin-pct P] [--kmax-pct P] [--trim]"
                 " [--ev-parts]"
                 " [--fail N [--fail-at-us T]] [--degrade N [--degrade-frac F]] [--loss-pct P]"
                 " [--seed S] [--deadline-ms D] [--fct-out FILE]\n";
    std::exit(why ? 2 : 0);
}

Options
Parse(int argc, char** argv)
{
    Options o;

    for (int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        auto val = [&]() -> std::string {
            if (i + 1 >= argc)
                Usage(("missing value for " + a).c_str());
            return argv[++i];
        };
        auto num = [&]() {
            std::string v = val();
            size_t used = 0;
            double d = -1;

            try
            {
                d = std::stod(v, &used);
            }
            catch (const std::exception&)
            {
            }
            if (used != v.size() || !(d >= 0))
                Usage((a + " takes a number >= 0, not " + v).c_str());
            return d;
        };

        if (a == "--help" || a == "-h")
            Usage(nullptr);
        else if (a == "--experiment")
            o.experiment = val();
        else if (a == "--topo")
            o.topo = val();
        else if (a == "--leaves")
            o.leaves = num();
        else if (a == "--per-leaf")
            o.perLeaf = num();
        else if (a == "--spines")
            o.spines = num();
        else if (a == "--k")
            o.k = num();
        else if (a == "--host-gbps")
            o.hostGbps = num();
        else if (a == "--fabric-gbps")
            o.fabricGbps = num();
        else if (a == "--delay-us")
            o.delayUs = num();
        else if (a == "--pattern")
            o.pattern = val();
        else if (a == "--senders")
            o.senders = num();
        else if (a == "--flows")
            o.flows = num();
        else if (a == "--msg-bytes")
            o.msgBytes = num();
        else if (a == "--transport")
            o.transport = val();
        else if (a == "--label")
            o.label = val();
        else if (a == "--set")
        {
            std::string kv = val();
            size_t eq = kv.find('=');

            if (eq == std::string::npos)
                Usage("--set takes NAME=VALUE");
            o.sets.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        }
        else if (a == "--queue-bdp")
            o.queueBdp = num();
        else if (a == "--kmin-pct")
            o.kminPct = num();
        else if (a == "--kmax-pct")
            o.kmaxPct = num();
        else if (a == "--trim")
            o.trim = true;
        else if (a == "--ev-parts")
            o.evParts = true;
        else if (a == "--fail")
            o.fail = num();
        else if (a == "--fail-at-us")
            o.failAtUs = num();
        else if (a == "--degrade")
            o.degrade = num();
        else if (a == "--degrade-frac")
            o.degradeFrac = num();
        else if (a == "--loss-pct")
            o.lossPct = num();
        else if (a == "--seed")
            o.seed = num();
        else if (a == "--deadline-ms")
            o.deadlineMs = num();
        else if (a == "--fct-out")
            o.fctOut = val();
        else
            Usage(("unknown option " + a).c_str());
    }
    if (o.transport != "mpdt" && o.transport != "dctcp")
        Usage("--transport is mpdt or dctcp");
    if (o.msgBytes < 1 || o.msgBytes > (16u << 20))
        Usage("--msg-bytes is 1 .. 16 MiB");
    if (o.queueBdp <= 0 || o.kminPct < 0 || o.kmaxPct < o.kminPct)
        Usage("--queue-bdp > 0, 0 <= --kmin-pct <= --kmax-pct");
    if (o.degradeFrac <= 0 || o.degradeFrac > 1)
        Usage("--degrade-frac is in (0, 1]");
    /* A failed link's error model would replace the random one. */
    if (o.lossPct < 0 || o.lossPct >= 100 || (o.lossPct && o.fail))
        Usage("--loss-pct is in [0, 100), and not with --fail");
    return o;
}

Fabric
MakeFabric(const Options& o)
{
    uint64_t host = o.hostGbps * 1e9;
    uint64_t fabric = (o.fabricGbps ? o.fabricGbps : o.hostGbps) * 1e9;
    Time delay = MicroSeconds(o.delayUs);

    if (o.topo == "leafspine" && o.leaves && o.perLeaf && o.spines &&
        o.leaves * o.perLeaf >= 2)
        return Fabric::LeafSpine(o.leaves, o.perLeaf, o.spines, host, fabric, delay);
    if (o.topo == "fattree" && o.k >= 2 && o.k % 2 == 0)
        return Fabric::FatTree(o.k, host, delay);
    Usage("--topo is leafspine (at least 2 hosts) or fattree (even --k)");
}

/* Who sends to whom: a random derangement, everyone to everyone, each
 * host to the one half the fabric away, or --senders hosts to host 0;
 * the first --flows of them.
 */
std::vector<std::pair<uint32_t, uint32_t>>
Pairs(const Options& o, uint32_t hosts, std::mt19937_64& rng)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;

    if (o.pattern == "permutation")
    {
        std::vector<uint32_t> to(hosts);
        bool fixed;

        for (uint32_t h = 0; h < hosts; h++)
            to[h] = h;
        do
        {
            std::shuffle(to.begin(), to.end(), rng);
            fixed = false;
            for (uint32_t h = 0; h < hosts; h++)
                fixed |= to[h] == h;
        } while (fixed);
        for (uint32_t h = 0; h < hosts; h++)
            pairs.emplace_back(h, to[h]);
    }
    else if (o.pattern == "alltoall")
    {
        for (uint32_t s = 0; s < hosts; s++)
            for (uint32_t d = 0; d < hosts; d++)
                if (s != d)
                    pairs.emplace_back(s, d);
    }
    else if (o.pattern == "cross")
    {
        for (uint32_t h = 0; h < hosts; h++)
            pairs.emplace_back(h, (h + hosts / 2) % hosts);
    }
    else if (o.pattern == "incast")
    {
        if (o.senders < 1 || o.senders >= hosts)
            Usage("--senders is 1 .. hosts - 1");
        for (uint32_t s = 1; s <= o.senders; s++)
            pairs.emplace_back(s, 0);
    }
    else
        Usage("--pattern is permutation, alltoall, cross or incast");
    if (o.flows && o.flows < pairs.size())
        pairs.resize(o.flows);
    return pairs;
}

/* The experiment's state while it runs. */
class Run
{
  public:
    Run(const Options& o, Fabric& fabric)
        : m_o(o),
          m_fabric(fabric)
    {
    }

    /* The ideal is processor sharing at the hosts' links: a flow that
     * shares its sender with @out flows and its receiver with @in ends
     * when the busier link has carried all of them.
     */
    void AddFlow(uint32_t src, uint32_t dst, uint32_t out, uint32_t in)
    {
        Time ideal = Seconds(std::max(out, in) * 8.0 * m_o.msgBytes / m_fabric.HostBps()) +
                     m_fabric.OneWay(src, dst, WIRE_MTU);

        m_byPair[{m_fabric.HostAddr(src).Get(), dst}].push_back(m_flows.size());
        m_flows.push_back(Flow{src, dst, m_o.msgBytes, ideal, Time(), 0});
    }

    /* @len more bytes of the flow @from -> @dst arrived (whole messages
     * for MPDT, segments for TCP).
     */
    void Arrived(Ipv4Address from, uint32_t dst, uint64_t len)
    {
        auto it = m_byPair.find({from.Get(), dst});

        if (it == m_byPair.end() || it->second.empty())
        {
            m_strays++;
            return;
        }
        Flow& f = m_flows[it->second.front()];
        f.rcvd += len;
        if (f.rcvd < f.bytes)
            return;
        f.done = Simulator::Now();
        it->second.pop_front();
        if (++m_completed == m_flows.size())
            Simulator::Stop();
    }

    const std::vector<Flow>& Flows() const
    {
        return m_flows;
    }

    uint64_t Completed() const
    {
        return m_completed;
    }

    uint64_t Strays() const
    {
        return m_strays;
    }

  private:
    const Options& m_o;
    Fabric& m_fabric;
    std::vector<Flow> m_flows;
    std::map<std::pair<uint32_t, uint32_t>, std::deque<size_t>> m_byPair;
    uint64_t m_completed = 0;
    uint64_t m_strays = 0;
};

std::unique_ptr<msim_params, void (*)(msim_params*)>
MpdtParams(const Options& o)
{
    std::unique_ptr<msim_params, void (*)(msim_params*)> p(msim_params_new(), msim_params_free);
    const char* why;

    for (const auto& [name, value] : o.sets)
    {
        why = msim_params_set(p.get(), name.c_str(), value.c_str());
        if (why)
            Usage((name + ": " + why).c_str());
    }
    why = msim_params_invalid(p.get());
    if (why)
        Usage(why);
    return p;
}

void
StartTcp(Run& run, Fabric& fabric, const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
         const Options& o)
{
    for (uint32_t h = 0; h < fabric.Hosts(); h++)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), TCP_PORT));
        Ptr<PacketSink> app = DynamicCast<PacketSink>(sink.Install(fabric.HostNode(h)).Get(0));

        app->TraceConnectWithoutContext(
            "Rx",
            MakeCallback(+[](Run* r, uint32_t dst, Ptr<const Packet> p, const Address& from) {
                r->Arrived(InetSocketAddress::ConvertFrom(from).GetIpv4(), dst, p->GetSize());
            }).Bind(&run, h));
    }
    for (const auto& [src, dst] : pairs)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(fabric.HostAddr(dst), TCP_PORT));

        bulk.SetAttribute("MaxBytes", UintegerValue(o.msgBytes));
        bulk.SetAttribute("SendSize", UintegerValue(1 << 16));
        bulk.Install(fabric.HostNode(src));
    }
}

void
ConfigureTcp()
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpDctcp"));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue("On"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(32 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(32 << 20));
    /* The RTO floor of MPDT's default (rto-min-us 10000). */
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(10)));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
}

/* One flat JSON object, keys in the order written. */
class JsonRow
{
  public:
    template <typename T>
    JsonRow& Num(const char* key, T value)
    {
        Key(key) << value;
        return *this;
    }

    JsonRow& Str(const char* key, const std::string& value)
    {
        Key(key) << '"' << value << '"';
        return *this;
    }

    JsonRow& Bool(const char* key, bool value)
    {
        Key(key) << (value ? "true" : "false");
        return *this;
    }

    std::string Text() const
    {
        return "{" + m_os.str() + "}";
    }

  private:
    std::ostream& Key(const char* key)
    {
        m_os << (m_os.tellp() > 0 ? ", \"" : "\"") << key << "\": ";
        return m_os;
    }

    std::ostringstream m_os;
};

/* FCT over ideal: max, mean, min; the flows' mean rate (goodput) and
 * Jain's index of their rates.
 */
struct FctStats
{
    double max = 0, mean = 0, min = 0, gbps = 0, jain = 0;
    Time last;
};

FctStats
Summarize(const Run& run)
{
    double sum = 0, rates = 0, squares = 0;
    FctStats st;

    for (const Flow& f : run.Flows())
    {
        if (f.done.IsZero())
            continue;
        double r = f.done.GetSeconds() / f.ideal.GetSeconds();
        double rate = f.bytes / f.done.GetSeconds();

        st.max = std::max(st.max, r);
        st.min = st.min ? std::min(st.min, r) : r;
        sum += r;
        rates += rate;
        squares += rate * rate;
        st.last = std::max(st.last, f.done);
    }
    if (run.Completed())
    {
        st.mean = sum / run.Completed();
        st.gbps = rates * 8e-9 / run.Completed();
        st.jain = rates * rates / (run.Completed() * squares);
    }
    return st;
}

/* One line per flow: source, destination, bytes, ideal and measured FCT
 * in microseconds (0: not completed), for CDFs and for finding the flow
 * that sets the maximum.
 */
void
WriteFcts(const std::string& path, const Run& run)
{
    std::ofstream out(path);

    out << "# src dst bytes ideal_us fct_us\n";
    for (const Flow& f : run.Flows())
        out << f.src << ' ' << f.dst << ' ' << f.bytes << ' ' << f.ideal.GetMicroSeconds()
            << ' ' << f.done.GetMicroSeconds() << '\n';
    if (!out)
    {
        std::cerr << "mpdt-sim: cannot write " << path << "\n";
        std::exit(1);
    }
}

void
Report(const Options& o, const msim_params* params, const Fabric& fabric, const Run& run,
       const msim_counts& c, double wallS)
{
    bool tcp = o.transport == "dctcp";
    FctStats st = Summarize(run);
    JsonRow row;

    row.Str("experiment", o.experiment)
        .Str("label", o.label.empty() ? o.transport : o.label)
        .Str("transport", o.transport)
        .Str("lb", tcp ? "ecmp" : msim_params_lb(params))
        .Str("cc", tcp ? "dctcp" : msim_params_cc(params))
        .Str("topology", fabric.Describe())
        .Str("pattern", o.pattern)
        .Num("hosts", fabric.Hosts())
        .Num("link_gbps", o.hostGbps)
        .Num("base_rtt_us", fabric.BaseRtt(WIRE_MTU).GetSeconds() * 1e6)
        .Num("msg_bytes", o.msgBytes)
        .Bool("trim", o.trim)
        .Bool("ev_parts", o.evParts)
        .Num("failed_links", o.fail)
        .Num("degraded_links", o.degrade)
        .Num("loss_pct", o.lossPct)
        .Num("seed", o.seed)
        .Num("expected", run.Flows().size())
        .Num("completed", run.Completed())
        .Num("max_fct_over_ideal", st.max)
        .Num("mean_fct_over_ideal", st.mean)
        .Num("min_fct_over_ideal", st.min)
        .Num("mean_flow_gbps", st.gbps)
        .Num("jain", st.jain)
        .Num("max_fct_us", st.last.GetMicroSeconds())
        .Num("queue_drops", fabric.Drops())
        .Num("trimmed", fabric.Trims())
        .Num("blackholed", fabric.BlackHoled())
        .Num("blackholed_data", fabric.BlackHoledData())
        .Num("random_lost", fabric.RandomLost())
        .Num("tx_data", c.tx_data)
        .Num("retx", c.retx)
        .Num("rtos", c.rtos)
        .Num("rto_undone", c.rto_undone)
        .Num("tx_sack", c.tx_sack)
        .Num("tx_nack", c.tx_nack)
        .Num("tx_probe", c.tx_probe)
        .Num("rx_data", c.rx_data)
        .Num("rx_reordered", c.rx_reordered)
        .Num("rx_dup", c.rx_dup)
        .Num("rx_trimmed", c.rx_trimmed)
        .Num("rx_ce", c.rx_ce)
        .Num("conn_failed", c.failed)
        .Num("cwnd_cuts", c.cwnd_cuts)
        .Num("strays", run.Strays())
        .Num("sim_us", Simulator::Now().GetMicroSeconds())
        .Num("wall_s", wallS);
    std::cout << row.Text() << std::endl;
}

} // namespace

int
main(int argc, char** argv)
{
    Options o = Parse(argc, argv);
    auto params = MpdtParams(o);
    std::mt19937_64 rng(o.seed);
    Fabric fabric = MakeFabric(o);
    double bdp = fabric.HostBps() / 8.0 * fabric.BaseRtt(WIRE_MTU).GetSeconds();
    QueueConfig q;
    std::vector<std::unique_ptr<Host>> hosts;
    msim_counts counts = {};
    auto t0 = std::chrono::steady_clock::now();

    q.maxBytes = std::max(o.queueBdp * bdp, 4.0 * WIRE_MTU);
    q.markMinBytes = o.kminPct / 100 * bdp;
    q.markMaxBytes = o.kmaxPct / 100 * bdp;
    q.trim = o.trim;
    q.mpdtPort = msim_params_port(params.get());
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(o.seed);
    if (o.transport == "dctcp")
        ConfigureTcp();
    fabric.Build(q, o.seed);
    if (o.evParts)
        fabric.RouteByEvParts(q.mpdtPort, msim_params_ev_port(params.get(), 0));

    Run run(o, fabric);
    auto pairs = Pairs(o, fabric.Hosts(), rng);
    std::vector<uint32_t> out(fabric.Hosts()), in(fabric.Hosts());
    for (const auto& [src, dst] : pairs)
    {
        out[src]++;
        in[dst]++;
    }
    for (const auto& [src, dst] : pairs)
        run.AddFlow(src, dst, out[src], in[dst]);

    std::vector<uint32_t> uplinks = fabric.Uplinks();
    std::shuffle(uplinks.begin(), uplinks.end(), rng);
    if (o.fail + o.degrade > uplinks.size())
        Usage("more failed and degraded links than uplinks");
    for (uint32_t i = 0; i < o.fail; i++)
        Simulator::Schedule(MicroSeconds(o.failAtUs), &Fabric::Fail, &fabric, uplinks[i]);
    for (uint32_t i = o.fail; i < o.fail + o.degrade; i++)
        fabric.Degrade(uplinks[i], o.degradeFrac);
    if (o.lossPct)
        fabric.Lossy(o.lossPct / 100);

    if (o.transport == "dctcp")
        StartTcp(run, fabric, pairs, o);
    else
    {
        for (uint32_t h = 0; h < fabric.Hosts(); h++)
            hosts.push_back(std::make_unique<Host>(
                fabric.HostNode(h), fabric.HostAddr(h), params.get(), o.seed * 1000003 + h,
                [&run, h](Ipv4Address from, uint32_t len, Time) { run.Arrived(from, h, len); }));
        Simulator::Schedule(Seconds(0), [&]() {
            for (const auto& [src, dst] : pairs)
                hosts[src]->Send(fabric.HostAddr(dst), o.msgBytes);
        });
    }

    Time longest;
    for (const Flow& f : run.Flows())
        longest = std::max(longest, f.ideal);
    Simulator::Stop(o.deadlineMs ? MilliSeconds(o.deadlineMs)
                                 : longest * (50.0 * pairs.size() / fabric.Hosts()) +
                                       MilliSeconds(200));
    Simulator::Run();
    for (const auto& h : hosts)
        h->AddCounts(&counts);
    if (!o.fctOut.empty())
        WriteFcts(o.fctOut, run);
    Report(o, params.get(), fabric, run, counts,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    hosts.clear();
    Simulator::Destroy();
    return run.Completed() == run.Flows().size() ? 0 : 1;
}
