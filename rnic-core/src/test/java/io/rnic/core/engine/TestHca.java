package io.rnic.core.engine;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.rnic.core.hca.Hca;
import io.rnic.core.hca.HcaLimits;
import io.rnic.core.wire.PacketSink;
import io.rnic.core.memory.PKeyTable;
import io.rnic.core.time.Scheduler;
import io.rnic.verbs.AsyncEvent;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/** An HCA with no network, for unit tests of single rooms; it records the events it raises. */
final class TestHca {
    private TestHca() {
    }

    static Hca create() {
        return create(new ArrayList<>());
    }

    static Hca create(List<AsyncEvent> events) {
        Scheduler s = new Scheduler() {
            @Override
            public Timer schedule(long delayNanos, Runnable task) {
                return () -> false;
            }

            @Override
            public void execute(Runnable task) {
                task.run();
            }

            @Override
            public boolean inOwnerThread() {
                return true;
            }

            @Override
            public long nanoTime() {
                return 0;
            }
        };
        PacketSink sink = new PacketSink() {
            @Override
            public ByteBufAllocator allocator() {
                return UnpooledByteBufAllocator.DEFAULT;
            }

            @Override
            public int openFlow(int preferredSourcePort) {
                return preferredSourcePort;
            }

            @Override
            public void send(ByteBuf packet, int sourcePort, InetSocketAddress destination) {
                packet.release();
            }
        };
        Hca hca = new Hca(InetAddress.getLoopbackAddress(), HcaLimits.defaults(), new PKeyTable(), s, sink);
        hca.asyncListener(events::add);
        return hca;
    }
}
