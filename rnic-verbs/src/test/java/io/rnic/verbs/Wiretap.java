package io.rnic.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.wire.WireTap;
import io.rnic.transport.fault.FaultModel;
import io.rnic.transport.sim.SimWire;
import java.util.ArrayList;
import java.util.List;

/** Test helpers to watch what a simulated wire sends and to inject crafted packets. */
final class Wiretap {
    /**
     * One packet as sent: opcode, PSN, the AETH syndrome and MSN where there is an AETH (-1
     * otherwise), and the BTH AckReq bit.
     */
    record Seen(String opcode, int psn, int syndrome, long at, int msn, boolean ackReq, long dmaLength) {
        Seen(String opcode, int psn, int syndrome, long at, int msn, boolean ackReq) {
            this(opcode, psn, syndrome, at, msn, ackReq, -1);
        }

        @Override
        public String toString() {
            return opcode + "@" + psn + (syndrome >= 0 ? String.format("/0x%02x", syndrome) : "");
        }
    }

    private Wiretap() {
    }

    /** Records every packet {@code wire} sends (before link faults). */
    static List<Seen> sent(SimWire wire) {
        List<Seen> seen = new ArrayList<>();
        wire.addTap((dir, ts, p, s, d) -> {
            if (dir == WireTap.Direction.SENT) {
                int r = p.readerIndex();
                Opcode op = OpcodeTable.lookup(p.getUnsignedByte(r));
                boolean aeth = op != null && op.has(io.rnic.core.packet.Header.AETH);
                int aethAt = aeth ? r + op.offsetOf(io.rnic.core.packet.Header.AETH) : 0;
                int syn = aeth ? p.getUnsignedByte(aethAt) : -1;
                int msn = aeth ? p.getUnsignedMedium(aethAt + 1) : -1;
                boolean ackReq = (p.getUnsignedByte(r + 8) & 0x80) != 0;
                long dma = op != null && op.has(io.rnic.core.packet.Header.RETH)
                        ? p.getUnsignedInt(r + op.offsetOf(io.rnic.core.packet.Header.RETH) + 12) : -1;
                seen.add(new Seen(op == null ? "?" : op.name(), p.getUnsignedMedium(r + 9), syn, ts, msn, ackReq, dma));
            }
        });
        return seen;
    }

    /** Sends a crafted packet from {@code from}'s QP flow to {@code to}, with a valid ICRC. */
    static void inject(SimWire from, int sourcePort, SimWire to, PacketFields f) {
        inject(from, sourcePort, to, f, 0);
    }

    /** As {@link #inject(SimWire, int, SimWire, PacketFields)}, with IP TOS byte {@code tos} (DSCP and ECN). */
    static void inject(SimWire from, int sourcePort, SimWire to, PacketFields f, int tos) {
        PseudoHeader ph = new PseudoHeader().addresses(from.localAddress().getAddress(), to.localAddress().getAddress())
                .ports(sourcePort, to.localAddress().getPort());
        ByteBuf buf = Unpooled.buffer();
        new PacketEncoder().encode(f, ph, buf, new RocePacket());
        from.send(buf, sourcePort, to.localAddress(), tos);
    }

    /**
     * A fault that rewrites the opcode of the first packet with opcode {@code from} into
     * {@code to} (same header layout) and re-seals the ICRC, so the receiver sees a well-formed
     * packet with the wrong opcode.
     */
    static FaultModel rewriteOpcodeOnce(SimWire sender, SimWire receiver, int sourcePort, int from, int to) {
        boolean[] done = {false};
        return fate -> {
            if (done[0] || fate.opcode() != from) {
                return;
            }
            done[0] = true;
            ByteBuf p = fate.packet();
            p.setByte(p.readerIndex(), to);
            PseudoHeader ph = new PseudoHeader()
                    .addresses(sender.localAddress().getAddress(), receiver.localAddress().getAddress())
                    .ports(sourcePort, receiver.localAddress().getPort());
            new io.rnic.core.packet.Icrc().write(ph, p, p.readerIndex(), p.readableBytes());
        };
    }

    static long count(List<Seen> seen, String opcode) {
        return seen.stream().filter(s -> s.opcode().equals(opcode)).count();
    }
}
