package io.rnic.transport.pcap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.AethFlyweight;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.AtomicEthFlyweight;
import io.rnic.core.packet.BthFlyweight;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.DethFlyweight;
import io.rnic.core.packet.FethFlyweight;
import io.rnic.core.packet.Header;
import io.rnic.core.packet.Icrc;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RethFlyweight;
import io.rnic.core.packet.RocePacket;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Judges the RoCEv2 packets of a capture with the emulator's own codec: every UDP datagram to
 * port 4791 (or an extra configured port) goes through {@link PacketDecoder#decode}, and the ICRC
 * of each decoded packet is recomputed over the IP and UDP headers <em>as captured</em> with
 * {@link Icrc#computeCaptured}. This is the check that proves our decoder against traffic nobody
 * on the team produced (the Soft-RoCE golden captures), and the one that tells whether our
 * encoder's packets would survive a real receiver.
 *
 * <p>A sender on an ordinary UDP socket cannot choose the IPv4 identification, so its ICRC is
 * computed over an assumed ID; {@link #assumeIpv4Identification} checks against that assumption
 * instead of the captured value, as {@code wire-check --ip-id N} does.
 *
 * <p>Each packet yields one {@link DecodedPacket} with a text line; the decoder keeps running
 * counts across frames and files. A library class: it prints nothing. Not thread-safe (it reuses
 * one {@link PacketDecoder}).
 */
public final class RoceCaptureDecoder {
    private final PacketDecoder decoder = new PacketDecoder();
    private final RocePacket packet = new RocePacket();
    private final BthFlyweight rawBth = new BthFlyweight();
    private final Set<Integer> ports = new TreeSet<>(Set.of(PseudoHeader.ROCE_PORT));
    private int assumedIpv4Id = -1;

    private long frames;
    private long packets;
    private long rejected;
    private long badIcrc;
    private final Map<DecodeResult, Long> rejectedByReason = new EnumMap<>(DecodeResult.class);

    /** Also treats UDP datagrams to {@code port} as RoCEv2 (several emulated HCAs on one host). */
    public RoceCaptureDecoder addPort(int port) {
        if (port < 0 || port > 0xFFFF) {
            throw new IllegalArgumentException("UDP port must be 0..65535, got " + port);
        }
        ports.add(port);
        return this;
    }

    /**
     * Verifies ICRCs of IPv4 packets as if their IP identification were {@code id}: the sender
     * computed the ICRC over a header it assumed rather than the one the kernel sent.
     */
    public RoceCaptureDecoder assumeIpv4Identification(int id) {
        if (id < 0 || id > 0xFFFF) {
            throw new IllegalArgumentException("IPv4 identification must be 0..65535, got " + id);
        }
        this.assumedIpv4Id = id;
        return this;
    }

    /** The UDP destination ports treated as RoCEv2, in ascending order. */
    public Set<Integer> ports() {
        return Collections.unmodifiableSet(ports);
    }

    /** Decodes every remaining frame of {@code reader}; non-RoCEv2 frames are counted and skipped. */
    public List<DecodedPacket> decodeAll(PcapReader reader) throws IOException {
        List<DecodedPacket> out = new ArrayList<>();
        for (PcapFrame f = reader.next(); f != null; f = reader.next()) {
            decode(f).ifPresent(out::add);
        }
        return out;
    }

    /**
     * Decodes one frame; empty if it holds no UDP datagram to a RoCEv2 port. Never throws for
     * any frame contents.
     */
    public Optional<DecodedPacket> decode(PcapFrame frame) {
        frames++;
        Optional<UdpDatagram> found = FrameParser.parse(frame);
        if (found.isEmpty() || !ports.contains(found.get().destinationPort())) {
            return Optional.empty();
        }
        UdpDatagram d = found.get();
        packets++;
        ByteBuf buf = Unpooled.wrappedBuffer(frame.data());
        int off = d.payloadOffset();
        int len = d.payloadLength();
        int opcodeByte = len >= 1 ? buf.getUnsignedByte(off) : -1;

        StringBuilder line = new StringBuilder(160);
        line.append(frame.number()).append(' ').append(d.source()).append(" -> ").append(d.destination()).append(' ');

        DecodeResult result = decoder.decode(buf, off, len, packet);
        DecodedPacket.IcrcVerdict verdict;
        Opcode opcode;
        if (result.ok()) {
            opcode = packet.opcode();
            boolean icrcOk = icrcMatches(frame.data(), buf, d);
            verdict = icrcOk ? DecodedPacket.IcrcVerdict.OK : DecodedPacket.IcrcVerdict.BAD;
            if (!icrcOk) {
                badIcrc++;
            }
            describe(line);
            line.append(icrcOk ? " icrc=ok" : " icrc=bad");
        } else {
            opcode = opcodeByte >= 0 ? OpcodeTable.lookup(opcodeByte) : null;
            verdict = DecodedPacket.IcrcVerdict.NOT_CHECKED;
            rejected++;
            rejectedByReason.merge(result, 1L, Long::sum);
            describeRejected(line, result, buf, off, len, opcodeByte, opcode);
        }
        if (d.truncated()) {
            line.append(" [capture truncated: ").append(d.payloadLength()).append(" of ")
                    .append(d.declaredPayloadLength()).append(" bytes]");
        }
        return Optional.of(new DecodedPacket(frame.number(), d, result, opcodeByte, opcode, verdict, line.toString()));
    }

    private boolean icrcMatches(byte[] data, ByteBuf buf, UdpDatagram d) {
        ByteBuf headers = buf;
        if (assumedIpv4Id >= 0 && d.ipVersion() == 4) {
            byte[] copy = data.clone();
            copy[d.ipOffset() + 4] = (byte) (assumedIpv4Id >>> 8);
            copy[d.ipOffset() + 5] = (byte) assumedIpv4Id;
            headers = Unpooled.wrappedBuffer(copy);
        }
        int computed = decoder.icrc().computeCaptured(headers, d.ipOffset(), d.ipHeaderLength(), d.payloadLength());
        return computed == Icrc.stored(buf, d.payloadOffset(), d.payloadLength());
    }

    /** BTH fields, then each extension header the opcode carries, in wire order. */
    private void describe(StringBuilder s) {
        Opcode op = packet.opcode();
        BthFlyweight bth = packet.bth();
        s.append(op.name()).append(String.format(" qp=0x%06x psn=%d", bth.destQp(), bth.psn()));
        if (bth.ackReq()) {
            s.append(" ack=1");
        }
        if (bth.solicited()) {
            s.append(" se=1");
        }
        if (bth.pkey() != 0xFFFF) {
            s.append(String.format(" pkey=0x%04x", bth.pkey()));
        }
        if (bth.fecn()) {
            s.append(" fecn=1");
        }
        if (bth.becn()) {
            s.append(" becn=1");
        }
        for (Header h : op.headers()) {
            appendHeader(s, h);
        }
        if (op.transport() == io.rnic.core.packet.Transport.UD && (bth.destQp() == 1 || packet.deth().srcQp() == 1)) {
            // a GSI packet: name the management datagram it carries (the CM's REQ, REP, ...)
            s.append(io.rnic.core.packet.MadHeader.describe(packet.buffer(), packet.payloadOffset(), packet.payloadLength()));
        }
        s.append(" payload=").append(packet.payloadLength());
    }

    private void appendHeader(StringBuilder s, Header h) {
        switch (h) {
            case RETH: {
                RethFlyweight r = packet.reth();
                s.append(String.format(" RETH(va=0x%x rkey=0x%08x len=%d)",
                        r.virtualAddress(), r.rkey(), Integer.toUnsignedLong(r.dmaLength())));
                break;
            }
            case AETH: {
                AethFlyweight a = packet.aeth();
                s.append(" AETH(").append(AethSyndrome.describe(a.syndrome())).append(" msn=").append(a.msn()).append(')');
                break;
            }
            case ATOMIC_ETH: {
                AtomicEthFlyweight a = packet.atomicEth();
                s.append(String.format(" AtomicETH(va=0x%x rkey=0x%08x swap=0x%x cmp=0x%x)",
                        a.virtualAddress(), a.rkey(), a.swapAdd(), a.compare()));
                break;
            }
            case ATOMIC_ACK_ETH:
                s.append(String.format(" AtomicAckETH(orig=0x%x)", packet.atomicAckEth().originalData()));
                break;
            case IMMDT:
                s.append(String.format(" ImmDt(0x%08x)", packet.immDt().immediate()));
                break;
            case IETH:
                s.append(String.format(" IETH(rkey=0x%08x)", packet.ieth().rkey()));
                break;
            case DETH: {
                DethFlyweight dt = packet.deth();
                s.append(String.format(" DETH(qkey=0x%08x srcqp=0x%06x)", dt.qkey(), dt.srcQp()));
                break;
            }
            case RDETH:
                s.append(String.format(" RDETH(eec=0x%06x)", packet.rdeth().eeContext()));
                break;
            case XRCETH:
                s.append(String.format(" XRCETH(srq=0x%06x)", packet.xrcEth().xrcSrq()));
                break;
            case FETH: {
                FethFlyweight f = packet.feth();
                s.append(" FETH(sel=").append(f.selectivity()).append(" plt=").append(f.placementType()).append(')');
                break;
            }
            case SRETH:
                s.append(packet.sreth().describe(packet.opcode().operation() == io.rnic.core.packet.Operation.ACKNOWLEDGE));
                break;
            case CNP_RESERVED:
            default:
                break;   // reserved bytes: nothing to show
        }
    }

    private void describeRejected(StringBuilder s, DecodeResult result, ByteBuf buf, int off, int len,
                                  int opcodeByte, Opcode opcode) {
        s.append("REJECTED ").append(result.name()).append(": ").append(result.description());
        if (opcodeByte >= 0) {
            s.append(String.format(" opcode=0x%02x", opcodeByte));
            if (opcode != null) {
                s.append('(').append(opcode.name()).append(')');
            }
        }
        if (len >= BthFlyweight.LENGTH) {
            rawBth.wrap(buf, off);
            s.append(String.format(" qp=0x%06x psn=%d", rawBth.destQp(), rawBth.psn()));
        }
        s.append(" len=").append(len);
    }

    /** Frames seen, RoCEv2 or not. */
    public long frames() {
        return frames;
    }

    /** Datagrams to a RoCEv2 port, whether they decoded or not. */
    public long packets() {
        return packets;
    }

    /** Packets {@link PacketDecoder} rejected. */
    public long rejected() {
        return rejected;
    }

    /** Packets rejected for {@code reason}. */
    public long rejected(DecodeResult reason) {
        return rejectedByReason.getOrDefault(reason, 0L);
    }

    /** Decoded packets whose ICRC did not match. */
    public long badIcrc() {
        return badIcrc;
    }

    /** True if every packet so far decoded and had a matching ICRC. */
    public boolean allClean() {
        return rejected == 0 && badIcrc == 0;
    }

    /**
     * The summary line {@code rnic decode} ends with; N counts every RoCEv2 datagram, the
     * rejected and bad-ICRC ones included.
     */
    public String summary() {
        return "decoded " + packets + " packets, " + rejected + " rejected, " + badIcrc + " bad ICRC";
    }
}
