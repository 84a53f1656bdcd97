-- SPDX-License-Identifier: GPL-2.0
--
-- mpdt.lua: Wireshark/tshark dissector for the MPDT wire protocol, v1.
--
-- The layout is the one of Documentation/wire-format.rst (sections 2-4)
-- and net/mpdt/wire.c: every MPDT packet is one UDP payload, sent to the
-- UDP port of the module parameter udp_port (4796 by default; preference
-- "mpdt.udp_port"), made of a 16-byte common header, a fixed header per
-- type (a PROBE with the COOKIE flag 8 bytes longer: the Cookie of the
-- NACK CHALLENGE it answers, wire-format.rst section 5.1) and, for DATA,
-- the payload.  All fields are big endian.
--
-- Besides decoding, the dissector applies the stateless checks of a v1
-- receiver (wire-format.rst section 6.1, mpdt_wire_decode()) in the same
-- order: every failing one gets expert info, and the first one names the
-- counter the receiver would increment in the generated field mpdt.drop.
--
-- Use:  tshark -X lua_script:tools/wireshark/mpdt.lua -r capture.pcap
-- or copy this file to ~/.local/lib/wireshark/plugins/.

local DEFAULT_UDP_PORT = 4796
local VERSION = 1
local COMMON_LEN = 16
local MSG_MAX = 16777216    -- largest Message Length (uapi MPDT_MSG_MAX)
local SACK_BITS = 64
local PSN_MOD = 4294967296  -- PSNs are 32-bit, compared modulo 2^32
local SACK_LIST_TEXT_MAX = 16   -- PSNs spelled out in the bitmap summary

local T_DATA, T_SACK, T_NACK, T_PROBE = 1, 2, 3, 4

local type_names = {
    [T_DATA] = "DATA",
    [T_SACK] = "SACK",
    [T_NACK] = "NACK",
    [T_PROBE] = "PROBE",
}

-- Header length of each type: DATA's is followed by the payload, the
-- others are the whole packet (a PROBE with COOKIE: COOKIE_LEN more).
local header_len = {
    [T_DATA] = 48,
    [T_SACK] = 56,
    [T_NACK] = 36,
    [T_PROBE] = 32,
}
local COOKIE_LEN = 8

local NACK_CHALLENGE = 4

local nack_codes = {
    [1] = "NO_BUFFER",
    [2] = "TRIMMED",
    [3] = "FLOWLET_GAP",
    [NACK_CHALLENGE] = "CHALLENGE",
}

-- Flags of the common header (wire-format.rst section 3.1): mask, name,
-- field abbreviation suffix, the types that may carry it.
local flag_defs = {
    { mask = 0x0001, name = "AR", abbr = "ar",
      desc = "Ack request", types = { [T_DATA] = true } },
    { mask = 0x0002, name = "RETX", abbr = "retx",
      desc = "Retransmission", types = { [T_DATA] = true } },
    { mask = 0x0004, name = "TRIMMED", abbr = "trimmed",
      desc = "Payload trimmed by a switch", types = { [T_DATA] = true } },
    { mask = 0x0008, name = "CE", abbr = "ce",
      desc = "Trigger was CE marked",
      types = { [T_SACK] = true, [T_NACK] = true } },
    { mask = 0x0010, name = "PROBE_ACK", abbr = "probe_ack",
      desc = "Answers a PROBE", types = { [T_SACK] = true } },
    { mask = 0x0020, name = "FLOWLET", abbr = "flowlet",
      desc = "In a flowlet, after Prev PSN", types = { [T_DATA] = true } },
    { mask = 0x0040, name = "COOKIE", abbr = "cookie",
      desc = "Returns a challenge's Cookie", types = { [T_PROBE] = true } },
}
local FLAGS_UNASSIGNED = 0xFF80
local F_TRIMMED = 0x0004
local F_COOKIE = 0x0040

local mpdt = Proto("mpdt", "Multipath Datagram Transport")

-- The fields, registered in this order (the order of the packet).
local f = {}
local field_list = {}

local function field(key, protofield)
    f[key] = protofield
    field_list[#field_list + 1] = protofield
end

-- Common header
field("version", ProtoField.uint8("mpdt.version", "Version", base.DEC))
field("type", ProtoField.uint8("mpdt.type", "Type", base.DEC, type_names))
field("flags", ProtoField.uint16("mpdt.flags", "Flags", base.HEX))
for _, d in ipairs(flag_defs) do
    d.field = ProtoField.bool("mpdt.flags." .. d.abbr,
        d.name .. " (" .. d.desc .. ")", 16, nil, d.mask)
    field("flag_" .. d.abbr, d.field)
end
field("flags_unassigned", ProtoField.uint16("mpdt.flags.unassigned",
    "Unassigned", base.HEX, nil, FLAGS_UNASSIGNED))
field("src_port", ProtoField.uint16("mpdt.srcport", "Source MPDT Port",
    base.DEC))
field("dst_port", ProtoField.uint16("mpdt.dstport",
    "Destination MPDT Port", base.DEC))
field("port", ProtoField.uint16("mpdt.port",
    "MPDT Port (source or destination)", base.DEC))
field("nonce", ProtoField.uint32("mpdt.nonce", "Nonce", base.HEX))
field("ev", ProtoField.uint16("mpdt.ev", "Entropy (EV)", base.DEC))
field("reserved", ProtoField.bytes("mpdt.reserved", "Reserved"))
-- DATA
field("psn", ProtoField.uint32("mpdt.psn", "Packet Sequence Number", base.DEC))
field("msg_id", ProtoField.uint32("mpdt.msg_id", "Message ID", base.DEC))
field("offset", ProtoField.uint32("mpdt.offset", "Offset", base.DEC))
field("msg_len", ProtoField.uint32("mpdt.msg_len", "Message Length",
    base.DEC))
field("ts", ProtoField.uint64("mpdt.ts", "Timestamp (ns)", base.DEC))
field("payload_len", ProtoField.uint16("mpdt.payload_len", "Payload Length",
    base.DEC))
field("prev_psn", ProtoField.uint32("mpdt.prev_psn", "Prev PSN", base.DEC))
-- SACK
field("sack_epsn", ProtoField.uint32("mpdt.sack.epsn", "Expected PSN (EPSN)",
    base.DEC))
field("sack_base", ProtoField.uint32("mpdt.sack.base", "SACK Base PSN",
    base.DEC))
field("sack_bitmap", ProtoField.uint64("mpdt.sack.bitmap", "SACK Bitmap",
    base.HEX))
field("sack_acked", ProtoField.uint32("mpdt.sack.acked",
    "PSN acknowledged by the bitmap", base.DEC))
field("sack_recv_bytes", ProtoField.uint64("mpdt.sack.recv_bytes",
    "Received Bytes", base.DEC))
field("sack_echo_ts", ProtoField.uint64("mpdt.sack.echo_ts",
    "Echo Timestamp (ns)", base.DEC))
field("sack_ooo", ProtoField.uint32("mpdt.sack.ooo_count", "OOO Count",
    base.DEC))
field("sack_ce", ProtoField.uint16("mpdt.sack.ce_count", "CE Count", base.DEC))
field("sack_room", ProtoField.uint16("mpdt.sack.room",
    "Room (1 + KiB of new message; 0: not said)", base.DEC))
-- NACK
field("nack_psn", ProtoField.uint32("mpdt.nack.psn", "Packet Sequence Number",
    base.DEC))
field("nack_code", ProtoField.uint8("mpdt.nack.code", "Code", base.DEC,
    nack_codes))
field("nack_epsn", ProtoField.uint32("mpdt.nack.epsn", "Expected PSN (EPSN)",
    base.DEC))
field("nack_echo_ts", ProtoField.uint64("mpdt.nack.echo_ts",
    "Echo Timestamp (ns)", base.DEC))
field("nack_cookie", ProtoField.uint64("mpdt.nack.cookie",
    "Cookie (in the Echo Timestamp field)", base.HEX))
-- PROBE
field("probe_base", ProtoField.uint32("mpdt.probe.sack_base", "SACK Base PSN",
    base.DEC))
field("probe_ts", ProtoField.uint64("mpdt.probe.ts", "Timestamp (ns)",
    base.DEC))
field("probe_cookie", ProtoField.uint64("mpdt.probe.cookie", "Cookie",
    base.HEX))
-- Bytes after a header that cannot be decoded (bad version, type or
-- length), and the verdict of a v1 receiver.
field("undecoded", ProtoField.bytes("mpdt.undecoded", "Undecoded bytes"))
field("drop", ProtoField.string("mpdt.drop", "Dropped by a v1 receiver as"))

mpdt.fields = field_list

local MALFORMED, ERROR = expert.group.MALFORMED, expert.severity.ERROR
local ef = {
    short = ProtoExpert.new("mpdt.expert.short",
        "Shorter than the MPDT header", MALFORMED, ERROR),
    bad_version = ProtoExpert.new("mpdt.expert.bad_version",
        "Unsupported MPDT version", MALFORMED, ERROR),
    bad_type = ProtoExpert.new("mpdt.expert.bad_type",
        "Unknown MPDT type", MALFORMED, ERROR),
    bad_flags = ProtoExpert.new("mpdt.expert.bad_flags",
        "Flag not allowed for this type", MALFORMED, ERROR),
    bad_port = ProtoExpert.new("mpdt.expert.bad_port",
        "MPDT port 0", MALFORMED, ERROR),
    bad_length = ProtoExpert.new("mpdt.expert.bad_length",
        "Length mismatch", MALFORMED, ERROR),
    bad_offset = ProtoExpert.new("mpdt.expert.bad_offset",
        "Offset or Payload Length beyond the message", MALFORMED, ERROR),
    bad_nack_code = ProtoExpert.new("mpdt.expert.bad_nack_code",
        "Unknown NACK code", MALFORMED, ERROR),
    truncated = ProtoExpert.new("mpdt.expert.truncated",
        "Header cut by the capture length", MALFORMED, expert.severity.WARN),
    reserved = ProtoExpert.new("mpdt.expert.reserved",
        "Reserved field not zero (ignored on receive)",
        expert.group.PROTOCOL, expert.severity.WARN),
    bogus_sack = ProtoExpert.new("mpdt.expert.bogus_sack",
        "SACK bitmap acknowledges a PSN at or before EPSN",
        expert.group.PROTOCOL, expert.severity.WARN),
}
mpdt.experts = { ef.short, ef.bad_version, ef.bad_type, ef.bad_flags,
    ef.bad_port, ef.bad_length, ef.bad_offset, ef.bad_nack_code,
    ef.truncated, ef.reserved, ef.bogus_sack }

mpdt.prefs.udp_port = Pref.uint("UDP port", DEFAULT_UDP_PORT,
    "UDP port of MPDT: the module parameter udp_port of the capturing hosts")

local data_dissector = Dissector.get("data")

-- Bit tests with arithmetic (exact below 2^53): no bit library, whose
-- name differs between the Lua versions Wireshark is built with.
local function has_bit(value, mask) -- mask: a power of two
    return math.floor(value / mask) % 2 == 1
end

local function bits_outside(value, allowed) -- value & ~allowed, 16 bits
    local extra = 0
    for bit = 0, 15 do
        local mask = 2 ^ bit
        if has_bit(value, mask) and not has_bit(allowed, mask) then
            extra = extra + mask
        end
    end
    return extra
end

-- The header length of a packet of type ptype (known) with these flags:
-- the length check 5 needs, whatever other flags are set.
local function packet_hlen(ptype, flags)
    if ptype == T_PROBE and has_bit(flags, F_COOKIE) then
        return header_len[ptype] + COOKIE_LEN
    end
    return header_len[ptype]
end

-- Serial-number distance a - b modulo 2^32 (RFC 1982).
local function psn_dist(a, b)
    return (a - b) % PSN_MOD
end

local function all_zero(range)
    for i = 0, range:len() - 1 do
        if range(i, 1):uint() ~= 0 then
            return false
        end
    end
    return true
end

-- Accumulates the checks a receiver fails, in the receiver's order.
local Problems = {}
Problems.__index = Problems

local function new_problems()
    return setmetatable({ list = {} }, Problems)
end

-- counter: the drop counter of wire-format.rst section 6.1.
function Problems:add(item, expert_field, range, counter, text)
    item:add_tvb_expert_info(expert_field, range, text)
    self.list[#self.list + 1] = counter
end

-- Adds the verdict of the first failing check; returns the Info suffix.
function Problems:finish(tree)
    local first = self.list[1]
    if not first then
        return ""
    end
    tree:add(f.drop, first):set_generated()
    return " [Malformed: " .. first .. "]"
end

local function add_reserved(tree, range)
    local item = tree:add(f.reserved, range)
    if not all_zero(range) then
        item:add_tvb_expert_info(ef.reserved, range)
    end
end

-- Check 6 when check is set; returns the flag names for the Info column.
local function add_flags(tree, tvb, ptype, check, problems)
    local flags = tvb(2, 2):uint()
    local names = {}
    local allowed = 0
    local ftree = tree:add(f.flags, tvb(2, 2))
    for _, d in ipairs(flag_defs) do
        ftree:add(d.field, tvb(2, 2))
        if has_bit(flags, d.mask) then
            names[#names + 1] = d.name
        end
        if d.types[ptype] then
            allowed = allowed + d.mask
        end
    end
    ftree:add(f.flags_unassigned, tvb(2, 2))
    if #names > 0 then
        ftree:append_text(" (" .. table.concat(names, ", ") .. ")")
    end
    local extra = bits_outside(flags, allowed)
    if check and extra ~= 0 then
        problems:add(ftree, ef.bad_flags, tvb(2, 2), "drop_bad_flags",
            string.format("Flags 0x%04x not allowed on %s",
                extra, type_names[ptype]))
    end
    if #names == 0 then
        return ""
    end
    return " [" .. table.concat(names, ",") .. "]"
end

-- The common header after the version.  Checks 6 and 7 (flags, ports)
-- apply only to a known type with its whole header.  Returns the flags
-- and ports for the Info column.
local function dissect_common(tvb, tree, ptype, problems)
    local check = type_names[ptype] and
        packet_hlen(ptype, tvb(2, 2):uint()) <= tvb:reported_len()
    tree:add(f.type, tvb(1, 1))
    local flag_text = add_flags(tree, tvb, ptype, check, problems)
    local sport, dport = tvb(4, 2):uint(), tvb(6, 2):uint()
    local sitem = tree:add(f.src_port, tvb(4, 2))
    local ditem = tree:add(f.dst_port, tvb(6, 2))
    tree:add(f.port, tvb(4, 2)):set_hidden()
    tree:add(f.port, tvb(6, 2)):set_hidden()
    tree:add(f.nonce, tvb(8, 4))
    tree:add(f.ev, tvb(12, 2))
    add_reserved(tree, tvb(14, 2))
    if check then
        if sport == 0 then
            problems:add(sitem, ef.bad_port, tvb(4, 2), "drop_bad_port",
                "Source MPDT Port is 0")
        end
        if dport == 0 then
            problems:add(ditem, ef.bad_port, tvb(6, 2), "drop_bad_port",
                "Destination MPDT Port is 0")
        end
    end
    return flag_text, string.format(" %u \226\134\146 %u", sport, dport)
end

-- tree: the MPDT item; top: the packet's, where the payload goes.
local function dissect_data(tvb, pinfo, top, tree, problems)
    local psn, msg_id = tvb(16, 4):uint(), tvb(20, 4):uint()
    local offset, msg_len = tvb(24, 4):uint(), tvb(28, 4):uint()
    local payload_len = tvb(40, 2):uint()
    local prev_psn = tvb(44, 4):uint()
    tree:add(f.psn, tvb(16, 4))
    tree:add(f.msg_id, tvb(20, 4))
    local oitem = tree:add(f.offset, tvb(24, 4))
    local mitem = tree:add(f.msg_len, tvb(28, 4))
    tree:add(f.ts, tvb(32, 8))
    local litem = tree:add(f.payload_len, tvb(40, 2))
    add_reserved(tree, tvb(42, 2))
    local pitem = tree:add(f.prev_psn, tvb(44, 4))
    if prev_psn == psn then
        pitem:append_text(" (no predecessor)")
    end

    -- Checks 8-11 of wire-format.rst section 6.1, in that order.
    local present = tvb:reported_len() - 48
    if has_bit(tvb(2, 2):uint(), F_TRIMMED) then
        if present > payload_len then
            problems:add(litem, ef.bad_length, tvb(40, 2),
                "drop_bad_length", string.format("Trimmed packet " ..
                "has %u payload bytes, more than Payload Length %u",
                present, payload_len))
        end
    elseif present ~= payload_len then
        problems:add(litem, ef.bad_length, tvb(40, 2), "drop_bad_length",
            string.format("%u payload bytes present, Payload Length says %u",
                present, payload_len))
    end
    if msg_len > MSG_MAX then
        problems:add(mitem, ef.bad_length, tvb(28, 4), "drop_bad_length",
            string.format("Message Length %u exceeds %u", msg_len, MSG_MAX))
    end
    if payload_len == 0 and msg_len ~= 0 then
        problems:add(litem, ef.bad_length, tvb(40, 2), "drop_bad_length",
            "Empty payload in a non-empty message")
    end
    if offset > msg_len or payload_len > msg_len - offset then
        problems:add(oitem, ef.bad_offset, tvb(24, 4), "drop_bad_offset",
            string.format("Bytes [%u, %u) are outside a %u-byte message",
                offset, offset + payload_len, msg_len))
    end

    if tvb:len() > 48 then
        data_dissector:call(tvb(48):tvb(), pinfo, top)
    end
    return string.format("DATA psn=%u msg=%u off=%u/%u len=%u prev=%u",
        psn, msg_id, offset, msg_len, payload_len, prev_psn)
end

-- The PSNs set in the SACK bitmap: generated fields (at most 64, one per
-- bit) under the bitmap, and a summary naming the first few.
local function add_sack_psns(bitmap_item, tvb, epsn, base)
    local psns = {}
    -- Bits 0-31 are bytes 28-31, bits 32-63 bytes 24-27.
    local words = { tvb(28, 4):uint(), tvb(24, 4):uint() }
    for i = 0, SACK_BITS - 1 do
        if has_bit(words[math.floor(i / 32) + 1], 2 ^ (i % 32)) then
            local psn = (base + i) % PSN_MOD
            psns[#psns + 1] = psn
            -- Bit i is in byte 31 - i / 8 of the packet.
            local item = bitmap_item:add(f.sack_acked,
                tvb(31 - math.floor(i / 8), 1), psn)
            item:set_generated()
        end
    end
    local shown = {}
    for i = 1, math.min(#psns, SACK_LIST_TEXT_MAX) do
        shown[i] = string.format("%u", psns[i])
    end
    local text = table.concat(shown, ", ")
    if #psns > SACK_LIST_TEXT_MAX then
        text = text .. string.format(", ... (%d more)",
            #psns - SACK_LIST_TEXT_MAX)
    end
    bitmap_item:append_text(string.format(" (%d PSN%s%s%s)", #psns,
        #psns == 1 and "" or "s", #psns > 0 and ": " or "", text))
    -- PSNs before EPSN are never set, nor is EPSN's own bit.
    for _, psn in ipairs(psns) do
        local d = psn_dist(psn, epsn)
        if d == 0 or d >= 2 ^ 31 then
            bitmap_item:add_tvb_expert_info(ef.bogus_sack, tvb(24, 8),
                string.format("SACK bitmap acknowledges PSN %u, " ..
                    "not after EPSN %u", psn, epsn))
            break
        end
    end
end

local function dissect_sack(tvb, tree)
    local epsn, base = tvb(16, 4):uint(), tvb(20, 4):uint()
    tree:add(f.sack_epsn, tvb(16, 4))
    tree:add(f.sack_base, tvb(20, 4))
    local bitmap_item = tree:add(f.sack_bitmap, tvb(24, 8))
    add_sack_psns(bitmap_item, tvb, epsn, base)
    tree:add(f.sack_recv_bytes, tvb(32, 8))
    tree:add(f.sack_echo_ts, tvb(40, 8))
    tree:add(f.sack_ooo, tvb(48, 4))
    tree:add(f.sack_ce, tvb(52, 2))
    tree:add(f.sack_room, tvb(54, 2))
    local room = tvb(54, 2):uint()
    return string.format("SACK epsn=%u base=%u bitmap=0x%08x%08x rcvd=%s " ..
        "ooo=%u ce=%u%s", epsn, base, tvb(24, 4):uint(), tvb(28, 4):uint(),
        tostring(tvb(32, 8):uint64()), tvb(48, 4):uint(), tvb(52, 2):uint(),
        room > 0 and string.format(" room=%uK", room - 1) or "")
end

local function dissect_nack(tvb, tree, problems)
    local psn, code, epsn = tvb(16, 4):uint(), tvb(20, 1):uint(),
        tvb(24, 4):uint()
    tree:add(f.nack_psn, tvb(16, 4))
    local citem = tree:add(f.nack_code, tvb(20, 1))
    add_reserved(tree, tvb(21, 3))
    tree:add(f.nack_epsn, tvb(24, 4))
    -- A CHALLENGE carries a Cookie where the others echo a Timestamp.
    local cookie = ""
    if code == NACK_CHALLENGE then
        tree:add(f.nack_cookie, tvb(28, 8))
        cookie = string.format(" cookie=0x%08x%08x", tvb(28, 4):uint(),
            tvb(32, 4):uint())
    else
        tree:add(f.nack_echo_ts, tvb(28, 8))
    end
    if not nack_codes[code] then
        problems:add(citem, ef.bad_nack_code, tvb(20, 1), "drop_bad_type",
            string.format("Unknown NACK code %u", code))
    end
    return string.format("NACK %s psn=%u epsn=%u%s",
        nack_codes[code] or string.format("code=%u", code), psn, epsn,
        cookie)
end

local function dissect_probe(tvb, tree)
    local base = tvb(16, 4):uint()
    tree:add(f.probe_base, tvb(16, 4))
    add_reserved(tree, tvb(20, 4))
    tree:add(f.probe_ts, tvb(24, 8))
    if not has_bit(tvb(2, 2):uint(), F_COOKIE) then
        return string.format("PROBE base=%u", base)
    end
    tree:add(f.probe_cookie, tvb(32, 8))
    return string.format("PROBE base=%u cookie=0x%08x%08x", base,
        tvb(32, 4):uint(), tvb(36, 4):uint())
end

-- Shows the bytes from off on as undecoded (when there are any).
local function add_undecoded(tree, tvb, off)
    if tvb:len() > off then
        tree:add(f.undecoded, tvb(off))
    end
end

-- One MPDT packet; returns its Info column text.
local function dissect_packet(tvb, pinfo, tree)
    local len = tvb:reported_len()
    local root = tree:add(mpdt, tvb(0, tvb:len()))
    local problems = new_problems()

    -- Check 2: the common header.
    if len < COMMON_LEN then
        problems:add(root, ef.short, tvb(0, tvb:len()), "drop_short",
            string.format("%u bytes, shorter than the %u-byte common header",
                len, COMMON_LEN))
        add_undecoded(root, tvb, 0)
        return "MPDT short" .. problems:finish(root)
    end
    if tvb:len() < COMMON_LEN then
        root:add_tvb_expert_info(ef.truncated, tvb(0, tvb:len()))
        return "MPDT (header not captured)"
    end

    -- Check 3: the version (a v2 header may differ after byte 1).
    local version = tvb(0, 1):uint()
    local vitem = root:add(f.version, tvb(0, 1))
    if version ~= VERSION then
        problems:add(vitem, ef.bad_version, tvb(0, 1), "drop_bad_version",
            string.format("Version %u, not %u", version, VERSION))
        add_undecoded(root, tvb, 1)
        return string.format("MPDT version=%u", version) ..
            problems:finish(root)
    end

    -- Checks 4-7: type, length of its header, flags, ports.
    local ptype = tvb(1, 1):uint()
    local flag_text, ports = dissect_common(tvb, root, ptype, problems)
    local name = type_names[ptype]
    if not name then
        problems:add(root, ef.bad_type, tvb(1, 1), "drop_bad_type",
            string.format("Type %u", ptype))
        add_undecoded(root, tvb, COMMON_LEN)
        return string.format("MPDT type=%u", ptype) .. ports ..
            problems:finish(root)
    end
    root:append_text(", " .. name)
    local hlen = packet_hlen(ptype, tvb(2, 2):uint())
    -- The PROBE's length depends on its COOKIE flag: say which.
    local hname = name
    if ptype == T_PROBE then
        hname = name .. (hlen > header_len[ptype] and " with COOKIE" or
            " without COOKIE")
    end
    if len < hlen then
        problems:add(root, ef.short, tvb(0, tvb:len()), "drop_short",
            string.format("%u bytes, shorter than the %u-byte %s header",
                len, hlen, hname))
        add_undecoded(root, tvb, COMMON_LEN)
        return name .. " short" .. flag_text .. ports ..
            problems:finish(root)
    end
    if tvb:len() < hlen then
        root:add_tvb_expert_info(ef.truncated, tvb(0, tvb:len()),
            string.format("Only %u of the %u header bytes were captured",
                tvb:len(), hlen))
        return name .. flag_text .. ports ..
            " (header not captured)" .. problems:finish(root)
    end

    -- Checks 8-13, per type.
    local info
    if ptype == T_DATA then
        info = dissect_data(tvb, pinfo, tree, root, problems)
    elseif ptype == T_SACK then
        info = dissect_sack(tvb, root)
    elseif ptype == T_NACK then
        info = dissect_nack(tvb, root, problems)
    else
        info = dissect_probe(tvb, root)
    end
    if ptype ~= T_DATA and len > hlen then
        problems:add(root, ef.bad_length, tvb(hlen, tvb:len() - hlen),
            "drop_bad_length", string.format(
            "%u byte%s after the %u-byte %s, which has a fixed size",
            len - hlen, len - hlen == 1 and "" or "s", hlen, hname))
        add_undecoded(root, tvb, hlen)
    end
    return info .. flag_text .. ports .. problems:finish(root)
end

-- A burst (design.rst, section 2): new DATA packets that left as one UDP
-- GSO skb.  A capture on the sending host, or behind a veth that took the
-- skb whole, shows it as one datagram: DATA packets back to back, each of
-- the first one's size but the last.  Returns that size, or nil if @tvb
-- is not such a burst (then it is one packet, valid or not).
local function burst_seg(tvb)
    local len = tvb:reported_len()
    local hlen = header_len[T_DATA]
    if tvb:len() < len or len < hlen or tvb(0, 1):uint() ~= VERSION or
        tvb(1, 1):uint() ~= T_DATA or has_bit(tvb(2, 2):uint(), F_TRIMMED) then
        return nil
    end
    local seg = hlen + tvb(40, 2):uint()
    if len <= seg then
        return nil
    end
    for off = seg, len - 1, seg do
        local rest = len - off
        if rest < hlen or tvb(off, 1):uint() ~= VERSION or
            tvb(off + 1, 1):uint() ~= T_DATA or
            (rest > seg and hlen + tvb(off + 40, 2):uint() ~= seg) then
            return nil
        end
    end
    return seg
end

function mpdt.dissector(tvb, pinfo, tree)
    local len = tvb:reported_len()
    local seg = burst_seg(tvb)
    pinfo.cols.protocol = "MPDT"
    if not seg then
        pinfo.cols.info = dissect_packet(tvb, pinfo, tree)
        return len
    end
    local infos = {}
    for off = 0, len - 1, seg do
        local n = math.min(seg, len - off)
        infos[#infos + 1] = dissect_packet(tvb(off, n):tvb(), pinfo, tree)
    end
    pinfo.cols.info = string.format("burst of %u: ", #infos) ..
        table.concat(infos, " | ")
    return len
end

-- Registration on the UDP port, moved when the preference changes.
local registered_port

local function register_port()
    local udp_table = DissectorTable.get("udp.port")
    if registered_port then
        udp_table:remove(registered_port, mpdt)
    end
    registered_port = mpdt.prefs.udp_port
    udp_table:add(registered_port, mpdt)
end

function mpdt.prefs_changed()
    if mpdt.prefs.udp_port ~= registered_port then
        register_port()
    end
end

register_port()
