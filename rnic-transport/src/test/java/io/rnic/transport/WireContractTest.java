package io.rnic.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.wire.Wire;
import io.rnic.core.wire.WireReceiver;
import io.rnic.core.wire.WireTap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link Wire} must have. One subclass per wire supplies how to open a wire
 * at an address and how to wait for the network (virtual time, or a bounded real-time wait).
 */
public abstract class WireContractTest {
    protected final List<Wire> opened = new ArrayList<>();
    /** Every buffer the tests sent or saw delivered; each must end with refCnt 0. */
    private final List<ByteBuf> tracked = Collections.synchronizedList(new ArrayList<>());

    /** Opens a wire bound to {@code ip} (the subclass chooses the port). */
    protected abstract Wire open(String ip);

    /** Lets the network run until {@code done} holds or a bound passes; returns {@code done}. */
    protected abstract boolean await(BooleanSupplier done);

    /** Lets every packet in flight be delivered or dropped, and every delivery finish. */
    protected abstract void quiesce();

    /** Addresses the subclass may bind. */
    protected abstract String ip(int n);

    /**
     * True if the wire carries a packet's IP TOS byte to the receiver; false if it cannot, and
     * then must say the TOS is unknown ({@code PacketSink.TOS_UNKNOWN}), never 0.
     */
    protected boolean carriesTos() {
        return true;
    }

    protected Wire wire(int n) {
        Wire w = open(ip(n));
        opened.add(w);
        return w;
    }

    @AfterEach
    void closeWiresAndCheckEveryBufferWasReleased() {
        quiesce();
        for (Wire w : opened) {
            w.close();
        }
        quiesce();
        synchronized (tracked) {
            for (ByteBuf b : tracked) {
                assertEquals(0, b.refCnt(), "every buffer is released exactly once");
            }
        }
    }

    protected ByteBuf packet(int seq, int size) {
        ByteBuf b = Unpooled.directBuffer(size);
        for (int i = 0; i < size; i++) {
            b.writeByte(i);
        }
        b.setInt(0, seq);
        tracked.add(b);
        return b;
    }

    /** A receiver that records copies of what it got, and tracks the delivered buffers. */
    protected class Recorder implements WireReceiver {
        final List<byte[]> packets = Collections.synchronizedList(new ArrayList<>());
        final List<InetSocketAddress> sources = Collections.synchronizedList(new ArrayList<>());
        final List<Integer> tos = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination, int t) {
            tos.add(t);
            onPacket(packet, source, destination);
        }

        @Override
        public void onPacket(ByteBuf packet, InetSocketAddress source, InetSocketAddress destination) {
            byte[] copy = new byte[packet.readableBytes()];
            packet.getBytes(packet.readerIndex(), copy);
            tracked.add(packet);
            sources.add(source);
            packets.add(copy);
        }

        int size() {
            return packets.size();
        }
    }

    @Test
    void deliversTheBytesAndTheSenderAddress() {
        Wire a = wire(1);
        Wire b = wire(2);
        Recorder rb = new Recorder();
        b.receiver(rb);
        ByteBuf p = packet(7, 64);
        byte[] expected = new byte[64];
        p.getBytes(0, expected);
        int port = a.openFlow(0xC132);
        a.send(p, port, b.localAddress());
        assertTrue(await(() -> rb.size() == 1));
        assertArrayEquals(expected, rb.packets.get(0));
        assertEquals(a.localAddress().getAddress(), rb.sources.get(0).getAddress());
        assertEquals(port, rb.sources.get(0).getPort(), "the receiver sees the flow's source port (the ICRC covers it)");
        assertEquals(1, a.counters().sentPackets());
        assertEquals(1, b.counters().receivedPackets());
        assertEquals(64, b.counters().receivedBytes());
    }

    @Test
    void theTosByteTravelsWithThePacketOrIsReportedUnknown() {
        Wire a = wire(1);
        Wire b = wire(2);
        Recorder rb = new Recorder();
        b.receiver(rb);
        List<Integer> tapped = Collections.synchronizedList(new ArrayList<>());
        b.addTap(new WireTap() {
            @Override
            public void onPacket(Direction d, long ts, ByteBuf p, InetSocketAddress s, InetSocketAddress dst) {
                tapped.add(Integer.MIN_VALUE);
            }

            @Override
            public void onPacket(Direction d, long ts, ByteBuf p, InetSocketAddress s, InetSocketAddress dst, int t) {
                tapped.add(t);
            }
        });
        int dscp26WithCe = 26 << 2 | io.rnic.core.wire.PacketSink.CE;
        a.send(packet(1, 64), a.openFlow(0xC133), b.localAddress(), dscp26WithCe);
        assertTrue(await(() -> rb.size() == 1));
        int expected = carriesTos() ? dscp26WithCe : io.rnic.core.wire.PacketSink.TOS_UNKNOWN;
        assertEquals(List.of(expected), rb.tos, "the receiver is told the TOS, or that it is unknown: never a made-up 0");
        assertEquals(List.of(expected), tapped, "so is a tap (a capture writes the real TOS byte)");
    }

    @Test
    void addressesSeveralHcas() {
        Wire[] w = {wire(1), wire(2), wire(3)};
        Recorder[] r = new Recorder[3];
        for (int i = 0; i < 3; i++) {
            r[i] = new Recorder();
            w[i].receiver(r[i]);
        }
        for (int from = 0; from < 3; from++) {
            for (int to = 0; to < 3; to++) {
                if (from != to) {
                    w[from].send(packet(from * 10 + to, 32), w[from].localAddress().getPort(), w[to].localAddress());
                }
            }
        }
        assertTrue(await(() -> r[0].size() == 2 && r[1].size() == 2 && r[2].size() == 2));
        for (int to = 0; to < 3; to++) {
            for (int k = 0; k < 2; k++) {
                int seq = java.nio.ByteBuffer.wrap(r[to].packets.get(k)).getInt();
                int from = seq / 10;
                assertEquals(to, seq % 10, "delivered to the addressed HCA");
                assertEquals(w[from].localAddress().getAddress(), r[to].sources.get(k).getAddress());
            }
        }
    }

    @Test
    void keepsOrderOnACleanLink() {
        Wire a = wire(1);
        Wire b = wire(2);
        Recorder rb = new Recorder();
        b.receiver(rb);
        int n = 500;
        for (int i = 0; i < n; i++) {
            a.send(packet(i, 256), a.localAddress().getPort(), b.localAddress());
        }
        assertTrue(await(() -> rb.size() == n), "received " + rb.size());
        for (int i = 0; i < n; i++) {
            assertEquals(i, java.nio.ByteBuffer.wrap(rb.packets.get(i)).getInt());
        }
    }

    @Test
    void aReceiverThatThrowsIsCountedAndTheWireKeepsGoing() {
        Wire a = wire(1);
        Wire b = wire(2);
        Recorder rb = new Recorder();
        b.receiver((p, s, d) -> {
            rb.onPacket(p, s, d);
            if (rb.size() == 1) {
                throw new IllegalStateException("boom");
            }
        });
        a.send(packet(1, 32), a.localAddress().getPort(), b.localAddress());
        a.send(packet(2, 32), a.localAddress().getPort(), b.localAddress());
        assertTrue(await(() -> rb.size() == 2));
        assertTrue(await(() -> b.counters().handlerErrors() == 1));
    }

    @Test
    void sendAfterCloseReleasesTheBufferAndCountsAnError() {
        Wire a = wire(1);
        Wire b = wire(2);
        a.close();
        a.send(packet(1, 32), a.localAddress().getPort(), b.localAddress());
        quiesce();
        assertEquals(1, a.counters().sendErrors());
    }

    @Test
    void aClosedWireReceivesNothing() {
        Wire a = wire(1);
        Wire b = wire(2);
        Recorder rb = new Recorder();
        b.receiver(rb);
        b.close();
        a.send(packet(1, 32), a.localAddress().getPort(), b.localAddress());
        quiesce();
        assertEquals(0, rb.size());
    }

    @Test
    void tapsSeeSentAndReceivedPackets() {
        Wire a = wire(1);
        Wire b = wire(2);
        List<WireTap.Direction> seenA = Collections.synchronizedList(new ArrayList<>());
        List<WireTap.Direction> seenB = Collections.synchronizedList(new ArrayList<>());
        a.addTap((dir, ts, p, s, d) -> seenA.add(dir));
        b.addTap((dir, ts, p, s, d) -> seenB.add(dir));
        Recorder rb = new Recorder();
        b.receiver(rb);
        a.send(packet(1, 32), a.localAddress().getPort(), b.localAddress());
        assertTrue(await(() -> rb.size() == 1));
        assertEquals(List.of(WireTap.Direction.SENT), seenA);
        assertEquals(List.of(WireTap.Direction.RECEIVED), seenB);
    }

    @Test
    void runsTimersOnItsScheduler() {
        Wire a = wire(1);
        boolean[] fired = {false};
        long start = a.scheduler().nanoTime();
        long[] at = {0};
        a.scheduler().schedule(2_000_000, () -> {
            at[0] = a.scheduler().nanoTime();
            fired[0] = true;
        });
        io.rnic.core.time.Scheduler.Timer cancelled = a.scheduler().schedule(1_000_000, () -> fired[0] = false);
        assertTrue(cancelled.cancel());
        assertTrue(await(() -> fired[0]));
        assertTrue(at[0] - start >= 2_000_000, "fired after its delay");
    }
}
