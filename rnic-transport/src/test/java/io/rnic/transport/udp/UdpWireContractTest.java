package io.rnic.transport.udp;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.rnic.core.wire.Wire;
import io.rnic.transport.WireContractTest;
import java.util.function.BooleanSupplier;

/**
 * The contract over real UDP sockets on loopback, on the RoCEv2 port of addresses of our own in
 * 127.0.0.0/8. Received buffers come from an unpooled allocator so that the test can check that
 * each was released (pooled buffer objects are recycled).
 */
class UdpWireContractTest extends WireContractTest {
    static final long BOUND_NANOS = 10_000_000_000L;

    @Override
    protected Wire open(String ip) {
        return UdpWire.bind(ip).allocator(new UnpooledByteBufAllocator(true)).open();
    }

    @Override
    protected boolean await(BooleanSupplier done) {
        return Await.until(done, BOUND_NANOS);
    }

    @Override
    protected void quiesce() {
        for (Wire w : opened) {
            UdpWire u = (UdpWire) w;
            if (!u.eventLoop().isShuttingDown()) {
                u.eventLoop().submit(() -> { }).syncUninterruptibly();
            }
        }
    }

    @Override
    protected String ip(int n) {
        return "127.0.77." + n;
    }

    /** Neither the JDK nor Netty hands up a received datagram's TOS (IP_RECVTOS): it is unknown. */
    @Override
    protected boolean carriesTos() {
        return false;
    }
}
