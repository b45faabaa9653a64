package io.rnic.transport.pcap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.AethSyndrome;
import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.Opcode;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.Operation;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireReceiver;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A realistic RC conversation between two wires, for capture tests: the requester posts SENDs of
 * several sizes (with and without pad), a multi-packet SEND, RDMA WRITEs segmented at a PMTU of
 * 1024 with the RETH on the FIRST packet, RDMA READs (one segmented, one READ_RESPONSE_ONLY) and
 * two atomics; the responder answers as an RC responder does (ACK on AckReq, READ responses
 * with AETH on FIRST/LAST/ONLY, ATOMIC_ACKNOWLEDGE with the original value), with the PSN of
 * the request it answers and an MSN counting completed messages. PSNs start just below 2^24 so
 * the conversation wraps the PSN space.
 *
 * <p>Every packet is encoded with a valid ICRC over the pseudo header of its flow: the sender's
 * address and the source port {@link Wire#openFlow} returned, the receiver's address and port.
 * Both ends check the ICRC of what they receive against the source the wire reports, so a wire
 * that carried the wrong source port would show up as {@link #errors()}.
 *
 * <p>Each end's code runs on its wire's protocol thread; the log of sends is synchronized.
 */
final class RcConversation {
    static final int PMTU = 1024;
    static final int FLOW_PORT = 0xC132;
    static final int REQUESTER_QP = 0x000011;
    static final int RESPONDER_QP = 0x000012;
    static final int START_PSN = 0xFFFFF8;
    static final int RKEY = 0x00C0FFEE;
    static final long REMOTE_VA = 0x7F00_0000_1000L;

    /** One packet as a wire was asked to send it, in the order of the sends. */
    record Sent(long nanoTime, InetSocketAddress source, InetSocketAddress destination, String opcode, int length) { }

    private final Wire requester;
    private final Wire responder;
    private final int requesterPort;
    private final int responderPort;
    private final List<Sent> sent = Collections.synchronizedList(new ArrayList<>());
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    private final List<PacketFields> requests = new ArrayList<>();
    private final int expectedResponses;
    private volatile int responsesReceived;

    /**
     * Opens one flow on each wire with {@link #FLOW_PORT} (call it off the wires' threads) and
     * installs the receivers.
     */
    RcConversation(Wire requester, Wire responder) {
        this.requester = requester;
        this.responder = responder;
        this.requesterPort = requester.openFlow(FLOW_PORT);
        this.responderPort = responder.openFlow(FLOW_PORT);
        this.expectedResponses = script();
        requester.receiver(new End(requester, requesterPort, responder.localAddress(), false));
        responder.receiver(new End(responder, responderPort, requester.localAddress(), true));
    }

    int requesterPort() {
        return requesterPort;
    }

    int responderPort() {
        return responderPort;
    }

    /** Request packets the requester sends. */
    int requestPackets() {
        return requests.size();
    }

    /** Response packets the responder sends. */
    int responsePackets() {
        return expectedResponses;
    }

    int totalPackets() {
        return requests.size() + expectedResponses;
    }

    boolean done() {
        return responsesReceived == expectedResponses;
    }

    int responsesReceived() {
        return responsesReceived;
    }

    List<Sent> sent() {
        synchronized (sent) {
            return new ArrayList<>(sent);
        }
    }

    List<String> errors() {
        synchronized (errors) {
            return new ArrayList<>(errors);
        }
    }

    /** Sends request {@code i}; call on the requester's protocol thread (or any thread on UDP). */
    void sendRequest(int i) {
        send(requester, requesterPort, responder.localAddress(), requests.get(i));
    }

    /** Sends every request now. */
    void sendAllRequests() {
        for (int i = 0; i < requests.size(); i++) {
            sendRequest(i);
        }
    }

    private void send(Wire wire, int sourcePort, InetSocketAddress to, PacketFields fields) {
        PseudoHeader ph = new PseudoHeader()
                .addresses(wire.localAddress().getAddress(), to.getAddress())
                .ports(sourcePort, to.getPort());
        ByteBuf buf = Unpooled.directBuffer(PacketEncoder.packetLength(fields.opcode(), fields.payload().length));
        int len = new PacketEncoder().encode(fields, ph, buf, new RocePacket());
        InetSocketAddress src = new InetSocketAddress(wire.localAddress().getAddress(), sourcePort);
        sent.add(new Sent(wire.scheduler().nanoTime(), src, to, fields.opcode().name(), len));
        wire.send(buf, sourcePort, to);
    }

    // ---------------------------------------------------------------- the requester's script

    private int psn = START_PSN;

    /** Builds the request packets; returns how many response packets they will draw. */
    private int script() {
        int responses = 0;
        for (int size : new int[] {1, 2, 3, 4, 5, 64, 1021, 1024}) {
            sendOnly(size);
            responses++;
        }
        multiPacket("RC_SEND", 2 * PMTU + 7, false);          // SEND FIRST/MIDDLE/LAST, pad 1
        responses++;
        // An ImmDt whose hex digits include letters: wire-check's _norm() compares tshark's ImmDt,
        // printed as bare hex, with int(v, 0), which reads an all-digit value such as 12345678
        // as decimal and reports a false disagreement.
        request("RC_SEND_ONLY_WITH_IMMEDIATE", 13, true, f -> f.immediate = 0xCAFE_F00D);
        responses++;
        multiPacket("RC_RDMA_WRITE", 2500, true);              // FIRST/MIDDLE/LAST 1024+1024+452
        responses++;
        multiPacket("RC_RDMA_WRITE", 3 * PMTU + 3, true);      // FIRST/MIDDLE/MIDDLE/LAST, pad 1
        responses++;
        request("RC_RDMA_WRITE_ONLY", 17, true, f -> reth(f, 17));
        responses++;
        responses += read(2100);                               // 3 READ responses
        responses += read(100);                                // READ_RESPONSE_ONLY
        request("RC_COMPARE_SWAP", 0, true, f -> {
            f.atomicVa = REMOTE_VA + 0x800;
            f.atomicRkey = RKEY;
            f.atomicCompare = 0;
            f.atomicSwapAdd = 0x1111_2222_3333_4444L;
        });
        responses++;
        request("RC_FETCH_ADD", 0, true, f -> {
            f.atomicVa = REMOTE_VA + 0x808;
            f.atomicRkey = RKEY;
            f.atomicSwapAdd = 5;
        });
        responses++;
        return responses;
    }

    private void sendOnly(int size) {
        request("RC_SEND_ONLY", size, true, f -> { });
    }

    private void multiPacket(String prefix, int total, boolean write) {
        int left = total;
        boolean first = true;
        while (left > 0) {
            int chunk = Math.min(PMTU, left);
            boolean last = chunk == left;
            String pos = first ? (last ? "_ONLY" : "_FIRST") : (last ? "_LAST" : "_MIDDLE");
            boolean withReth = write && first;
            request(prefix + pos, chunk, last, f -> {
                if (withReth) {
                    reth(f, total);
                }
            });
            left -= chunk;
            first = false;
        }
    }

    private static void reth(PacketFields f, int length) {
        f.rethVa = REMOTE_VA;
        f.rethRkey = RKEY;
        f.rethLength = length;
    }

    /** A READ request; the PSN advances by the number of response packets. */
    private int read(int length) {
        int packets = Math.max(1, (length + PMTU - 1) / PMTU);
        PacketFields f = fields("RC_RDMA_READ_REQUEST", 0, true, RESPONDER_QP, psn);
        reth(f, length);
        requests.add(f);
        psn = (psn + packets) & 0xFFFFFF;
        return packets;
    }

    private void request(String opcode, int payload, boolean ackReq, java.util.function.Consumer<PacketFields> extra) {
        PacketFields f = fields(opcode, payload, ackReq, RESPONDER_QP, psn);
        extra.accept(f);
        requests.add(f);
        psn = (psn + 1) & 0xFFFFFF;
    }

    private static PacketFields fields(String opcode, int payload, boolean ackReq, int destQp, int psn) {
        byte[] data = new byte[payload];
        for (int i = 0; i < payload; i++) {
            data[i] = (byte) (psn + i);
        }
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName(opcode)).payload(data);
        f.pkey = 0xFFFF;
        f.destQp = destQp;
        f.psn = psn;
        f.ackReq = ackReq;
        return f;
    }

    // ---------------------------------------------------------------- both ends' receivers

    /** Checks every packet's ICRC against the source the wire reports; the responder answers. */
    private final class End implements WireReceiver {
        private final Wire wire;
        private final int flowPort;
        private final InetSocketAddress peer;
        private final boolean responds;
        private final PacketDecoder decoder = new PacketDecoder();
        private final RocePacket view = new RocePacket();
        private final PseudoHeader rx = new PseudoHeader();
        private int msn;
        private long atomicCell;

        End(Wire wire, int flowPort, InetSocketAddress peer, boolean responds) {
            this.wire = wire;
            this.flowPort = flowPort;
            this.peer = peer;
            this.responds = responds;
        }

        @Override
        public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
            rx.addresses(source.getAddress(), destination.getAddress()).ports(source.getPort(), destination.getPort());
            DecodeResult r = decoder.decode(packet, packet.readerIndex(), packet.readableBytes(), rx, view);
            if (!r.ok()) {
                errors.add(wire.localAddress() + " received a packet from " + source + ": " + r);
                return;
            }
            if (source.getPort() != (responds ? requesterPort : responderPort)) {
                errors.add(wire.localAddress() + " received from source port " + source.getPort());
            }
            Opcode op = view.opcode();
            if (!responds) {
                if (op.isResponse()) {
                    responsesReceived++;
                } else {
                    errors.add("requester received a request " + op.name());
                }
                return;
            }
            respond(op, PacketFields.readFrom(view));
        }

        private void respond(Opcode op, PacketFields req) {
            Operation operation = op.operation();
            int reqPsn = req.psn;
            switch (operation) {
                case SEND, RDMA_WRITE -> {
                    if (op.position().endsMessage()) {
                        msn = (msn + 1) & 0xFFFFFF;
                        if (req.ackReq) {
                            send(wire, flowPort, peer, ack("RC_ACKNOWLEDGE", reqPsn, 0));
                        }
                    }
                }
                case RDMA_READ_REQUEST -> {
                    int length = req.rethLength;
                    int packets = Math.max(1, (length + PMTU - 1) / PMTU);
                    msn = (msn + 1) & 0xFFFFFF;
                    for (int i = 0; i < packets; i++) {
                        int chunk = Math.min(PMTU, length - i * PMTU);
                        String pos = packets == 1 ? "ONLY" : i == 0 ? "FIRST" : i == packets - 1 ? "LAST" : "MIDDLE";
                        PacketFields f = fields("RC_RDMA_READ_RESPONSE_" + pos, chunk, false, REQUESTER_QP,
                                (reqPsn + i) & 0xFFFFFF);
                        f.ackReq = false;
                        f.aethSyndrome = AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
                        f.aethMsn = msn;
                        send(wire, flowPort, peer, f);
                    }
                }
                case COMPARE_SWAP, FETCH_ADD -> {
                    msn = (msn + 1) & 0xFFFFFF;
                    long original = atomicCell;
                    if (operation == Operation.FETCH_ADD) {
                        atomicCell += req.atomicSwapAdd;
                    } else if (atomicCell == req.atomicCompare) {
                        atomicCell = req.atomicSwapAdd;
                    }
                    send(wire, flowPort, peer, ack("RC_ATOMIC_ACKNOWLEDGE", reqPsn, original));
                }
                default -> errors.add("responder cannot answer " + op.name());
            }
        }

        private PacketFields ack(String opcode, int reqPsn, long original) {
            PacketFields f = fields(opcode, 0, false, REQUESTER_QP, reqPsn);
            f.aethSyndrome = AethSyndrome.ack(AethSyndrome.CREDITS_INVALID);
            f.aethMsn = msn;
            f.atomicOriginal = original;
            return f;
        }
    }
}
