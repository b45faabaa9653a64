package io.rnic.transport.pcap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.wire.WireTap;
import io.rnic.transport.sim.LinkConfig;
import io.rnic.transport.sim.SimNetwork;
import io.rnic.transport.sim.SimWire;
import io.rnic.transport.udp.Await;
import io.rnic.transport.udp.UdpWire;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Captures an RC conversation ({@link RcConversation}) with {@link PcapCapture} on the simulated
 * network and on the UDP wire, and reads the file back with {@link PcapReader} and
 * {@link RoceCaptureDecoder}: every packet decodes, every ICRC validates strictly against the
 * captured headers (no assumed IP ID), timestamps and source ports are the wire's. Then the
 * independent judge, wire-check ({@code --psn --mtu 1024}), must accept the same file; where
 * tshark or wire-check is not installed that last step aborts the test (shown as skipped).
 */
class PcapCaptureTest {
    private static final int PCAP_NANOS_MAGIC = 0xA1B23C4D;
    private static final Set<WireTap.Direction> SENT = EnumSet.of(WireTap.Direction.SENT);
    /** Opcodes the conversation must put on the wire. */
    private static final Set<String> EXPECTED_OPCODES = new TreeSet<>(List.of(
            "RC_SEND_ONLY", "RC_SEND_FIRST", "RC_SEND_MIDDLE", "RC_SEND_LAST", "RC_SEND_ONLY_WITH_IMMEDIATE",
            "RC_RDMA_WRITE_FIRST", "RC_RDMA_WRITE_MIDDLE", "RC_RDMA_WRITE_LAST", "RC_RDMA_WRITE_ONLY",
            "RC_RDMA_READ_REQUEST", "RC_RDMA_READ_RESPONSE_FIRST", "RC_RDMA_READ_RESPONSE_MIDDLE",
            "RC_RDMA_READ_RESPONSE_LAST", "RC_RDMA_READ_RESPONSE_ONLY", "RC_ACKNOWLEDGE",
            "RC_COMPARE_SWAP", "RC_FETCH_ADD", "RC_ATOMIC_ACKNOWLEDGE"));

    @TempDir
    Path dir;

    /** Requests start at this virtual time and follow each other at {@link #GAP_NANOS}. */
    private static final long START_NANOS = 1_000;
    private static final long GAP_NANOS = 2_000;

    @ParameterizedTest(name = "{0} <-> {1}")
    @CsvSource({"192.0.2.1, 192.0.2.2", "2001:db8::a, 2001:db8::b"})
    void simulatedConversationIsCapturedOnceWithVirtualTimesAndValidIcrcs(String requesterIp, String responderIp)
            throws Exception {
        int ipVersion = InetAddress.getByName(requesterIp).getAddress().length == 4 ? 4 : 6;
        Path file = dir.resolve("sim-ipv" + ipVersion + ".pcap");
        RcConversation conv;
        try (SimNetwork net = new SimNetwork(7); PcapCapture capture = new PcapCapture(file)) {
            SimWire a = net.attach(requesterIp);
            SimWire b = net.attach(responderIp);
            capture.attach(a, SENT).attach(b, SENT);
            conv = new RcConversation(a, b);
            for (int i = 0; i < conv.requestPackets(); i++) {
                int n = i;
                net.scheduler().schedule(START_NANOS + i * GAP_NANOS, () -> conv.sendRequest(n));
            }
            net.scheduler().runUntilIdle();
            assertConversationCompleted(conv);
            assertEquals(0, net.scheduler().errors(), String.valueOf(net.scheduler().lastError()));
            assertEquals(conv.totalPackets(), capture.packets());
        }
        assertEquals(RcConversation.FLOW_PORT, conv.requesterPort());
        assertEquals(RcConversation.FLOW_PORT, conv.responderPort());

        List<PcapFrame> frames = PcapReader.readAll(file);
        List<DecodedPacket> decoded = decodeStrictly(frames);
        List<RcConversation.Sent> sent = conv.sent();
        assertEquals(sent.size(), frames.size(), "each packet appears once");
        for (int i = 0; i < frames.size(); i++) {
            RcConversation.Sent s = sent.get(i);
            DecodedPacket p = decoded.get(i);
            assertEquals(s.nanoTime(), frames.get(i).timestampNanos(), "frame " + (i + 1) + " carries the virtual send time");
            assertEquals(ipVersion, p.datagram().ipVersion());
            assertSameFlow(s, p);
        }
        assertEquals(START_NANOS, frames.get(0).timestampNanos(), "virtual time, not the wall clock");
        assertEquals(EXPECTED_OPCODES, opcodes(decoded));

        WireCheck.assertClean(file, frames.size());
    }

    @Test
    void udpConversationIsCapturedOnceWithWallClockTimesAndValidIcrcs() throws Exception {
        Path file = dir.resolve("udp.pcap");
        RcConversation conv;
        long before = System.currentTimeMillis() * 1_000_000L;
        try (UdpWire a = UdpWire.bind("127.0.80.1").open();
             UdpWire b = UdpWire.bind("127.0.80.2").open();
             PcapCapture capture = new PcapCapture(file)) {
            capture.attach(a, SENT).attach(b, SENT);
            conv = new RcConversation(a, b);
            conv.sendAllRequests();
            assertTrue(Await.until(conv::done, 20_000_000_000L),
                    "responses received: " + conv.responsesReceived() + " of " + conv.responsePackets());
            assertConversationCompleted(conv);
            assertTrue(Await.until(() -> capture.packets() == conv.totalPackets(), 5_000_000_000L));
            assertEquals(0, a.counters().sendErrors() + b.counters().sendErrors());
        }
        long after = System.currentTimeMillis() * 1_000_000L;
        assertEquals(RcConversation.FLOW_PORT, conv.requesterPort(), "127.0.80.1:0xC132 should be free");
        assertEquals(RcConversation.FLOW_PORT, conv.responderPort(), "127.0.80.2:0xC132 should be free");

        List<PcapFrame> frames = PcapReader.readAll(file);
        List<DecodedPacket> decoded = decodeStrictly(frames);
        assertEquals(conv.totalPackets(), frames.size(), "each packet appears once");
        long slack = 50_000_000L;   // the wire's epoch offset is taken from a millisecond clock
        for (PcapFrame f : frames) {
            assertTrue(f.timestampNanos() >= before - slack && f.timestampNanos() <= after + slack,
                    "frame " + f.number() + " at " + f.timestamp() + " is outside the test's wall-clock window");
        }
        // Each wire sends from one thread, so per sender the file keeps the order of the sends.
        for (InetSocketAddress sender : List.of(new InetSocketAddress("127.0.80.1", RcConversation.FLOW_PORT),
                new InetSocketAddress("127.0.80.2", RcConversation.FLOW_PORT))) {
            List<RcConversation.Sent> sent = conv.sent().stream().filter(s -> s.source().equals(sender)).toList();
            List<DecodedPacket> fromSender = decoded.stream()
                    .filter(p -> p.datagram().source().equals(sender.getAddress().getHostAddress())).toList();
            assertEquals(sent.size(), fromSender.size(), "packets from " + sender);
            for (int i = 0; i < sent.size(); i++) {
                assertSameFlow(sent.get(i), fromSender.get(i));
            }
        }
        assertEquals(EXPECTED_OPCODES, opcodes(decoded));

        WireCheck.assertClean(file, frames.size());
    }

    @Test
    void bothDirectionsOfOneWireAreCapturedWhenAttachedWithBoth() throws Exception {
        Path both = dir.resolve("sim-both-directions.pcap");
        Path sentOnly = dir.resolve("sim-sent-only.pcap");
        long latency = 5_000;
        RcConversation conv;
        try (SimNetwork net = new SimNetwork(11).defaults(new LinkConfig(latency, 0, 0));
             PcapCapture all = new PcapCapture(both);
             PcapCapture sending = new PcapCapture(sentOnly)) {
            SimWire a = net.attach("192.0.2.11");
            SimWire b = net.attach("192.0.2.12");
            all.attach(a);                 // both directions of the requester only
            sending.attach(a, SENT);
            conv = new RcConversation(a, b);
            for (int i = 0; i < conv.requestPackets(); i++) {
                int n = i;
                net.scheduler().schedule(START_NANOS + i * GAP_NANOS, () -> conv.sendRequest(n));
            }
            net.scheduler().runUntilIdle();
            assertConversationCompleted(conv);
            assertEquals(conv.totalPackets(), all.packets());
            assertEquals(conv.requestPackets(), sending.packets());
        }

        List<PcapFrame> frames = PcapReader.readAll(both);
        List<DecodedPacket> decoded = decodeStrictly(frames);
        assertEquals(conv.totalPackets(), frames.size());
        List<RcConversation.Sent> requests = conv.sent().stream().filter(s -> s.source().getAddress().getHostAddress().equals("192.0.2.11")).toList();
        List<RcConversation.Sent> responses = conv.sent().stream().filter(s -> s.source().getAddress().getHostAddress().equals("192.0.2.12")).toList();
        assertEquals(conv.requestPackets(), requests.size());
        assertEquals(conv.responsePackets(), responses.size());
        int req = 0;
        int resp = 0;
        for (int i = 0; i < frames.size(); i++) {
            DecodedPacket p = decoded.get(i);
            long ts = frames.get(i).timestampNanos();
            if (p.datagram().source().equals("192.0.2.11")) {
                RcConversation.Sent s = requests.get(req++);
                assertSameFlow(s, p);
                assertEquals(s.nanoTime(), ts, "SENT: the virtual time of the send");
            } else {
                RcConversation.Sent s = responses.get(resp++);
                assertSameFlow(s, p);
                assertEquals(s.nanoTime() + latency, ts, "RECEIVED: the virtual time of the arrival (send + latency)");
            }
        }
        assertEquals(conv.requestPackets(), req);
        assertEquals(conv.responsePackets(), resp);
        assertEquals(conv.requestPackets(), decodeStrictly(PcapReader.readAll(sentOnly)).size());

        WireCheck.assertClean(both, frames.size());
    }

    @Test
    void capturesAreNanosecondPcap() throws Exception {
        Path file = dir.resolve("empty.pcap");
        new PcapCapture(file).close();
        ByteBuffer header = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(PCAP_NANOS_MAGIC, header.getInt(0));
        assertEquals(LinkType.ETHERNET, header.getInt(20));
    }

    // ----------------------------------------------------------------------------- helpers

    private static void assertConversationCompleted(RcConversation conv) {
        assertEquals(List.of(), conv.errors(), "both ends decode and verify the ICRC of what they receive");
        assertTrue(conv.done(), "responses received: " + conv.responsesReceived() + " of " + conv.responsePackets());
    }

    /** Decodes every frame strictly (ICRC over the captured headers) and asserts all are clean. */
    private static List<DecodedPacket> decodeStrictly(List<PcapFrame> frames) {
        RoceCaptureDecoder decoder = new RoceCaptureDecoder();
        List<DecodedPacket> out = new ArrayList<>();
        for (PcapFrame f : frames) {
            assertEquals(LinkType.ETHERNET, f.linkType());
            DecodedPacket p = decoder.decode(f).orElseThrow(() -> new AssertionError("frame " + f.number() + " is not RoCEv2"));
            assertTrue(p.clean(), p.line());
            out.add(p);
        }
        assertEquals(frames.size(), decoder.packets());
        assertEquals(0, decoder.rejected(), decoder.summary());
        assertEquals(0, decoder.badIcrc(), decoder.summary());
        assertTrue(decoder.allClean(), decoder.summary());
        return out;
    }

    private static void assertSameFlow(RcConversation.Sent s, DecodedPacket p) throws IOException {
        UdpDatagram d = p.datagram();
        String where = p.line();
        assertEquals(s.opcode(), p.opcode().name(), where);
        assertEquals(s.source().getAddress(), InetAddress.getByName(d.source()), where);
        assertEquals(s.destination().getAddress(), InetAddress.getByName(d.destination()), where);
        assertEquals(RcConversation.FLOW_PORT, d.sourcePort(), "source port is the flow's: " + where);
        assertEquals(s.source().getPort(), d.sourcePort(), where);
        assertEquals(4791, d.destinationPort(), where);
        assertEquals(s.length(), d.payloadLength(), where);
    }

    private static Set<String> opcodes(List<DecodedPacket> decoded) {
        return decoded.stream().map(p -> p.opcode().name()).collect(Collectors.toCollection(TreeSet::new));
    }
}
