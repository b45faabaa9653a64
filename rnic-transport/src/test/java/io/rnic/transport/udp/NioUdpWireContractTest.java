package io.rnic.transport.udp;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.rnic.core.wire.Wire;

/** The same contract on Netty's NIO transport: the fallback where native epoll is missing. */
class NioUdpWireContractTest extends UdpWireContractTest {
    @Override
    protected Wire open(String ip) {
        UdpWire w = UdpWire.bind(ip).preferNative(false).allocator(new UnpooledByteBufAllocator(true)).open();
        if (w.isNative()) {
            throw new AssertionError("asked for NIO, got " + w);
        }
        return w;
    }

    @Override
    protected String ip(int n) {
        return "127.0.78." + n;
    }
}
