package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.hca.Hca;
import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketEncoder;
import io.rnic.core.packet.PacketFields;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;
import io.rnic.verbs.Counter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/**
 * No exception escapes the HCA's receive path (issue 12): an internal error while handling a
 * packet, or in work owed at the end of a receive batch, is caught and counted in
 * {@code internal_errors}, so a flood test can assert that none happened.
 */
class HcaInternalErrorsTest {
    @Test
    void anExceptionOnTheReceivePathIsCaughtAndCountedAsAnInternalError() {
        Hca hca = TestHca.create();
        int qpn = hca.reserveQpn();
        hca.attach(qpn, (p, ip) -> {
            throw new IllegalStateException("a bug in a room");
        });
        InetAddress lo = InetAddress.getLoopbackAddress();
        PacketFields f = new PacketFields().opcode(OpcodeTable.byName("RC_SEND_ONLY"));
        f.destQp = qpn;
        f.payload(new byte[8]);
        ByteBuf buf = Unpooled.buffer();
        new PacketEncoder().encode(f, new PseudoHeader().addresses(lo, lo).ports(0xC000, 4791), buf, new RocePacket());

        assertDoesNotThrow(() -> hca.onPacket(buf, new InetSocketAddress(lo, 0xC000), new InetSocketAddress(lo, 4791)));
        assertEquals(1, hca.counters().get(Counter.RCVD_PKTS), "the packet passed decode and ICRC");
        assertEquals(1, hca.counters().get(Counter.INTERNAL_ERRORS));
        assertEquals(1, hca.counters().get(Counter.RCVD_DROPPED));

        hca.atBatchEnd(() -> {
            throw new IllegalStateException("a bug in owed work");
        });
        assertDoesNotThrow(hca::endBatch);
        assertEquals(2, hca.counters().get(Counter.INTERNAL_ERRORS));
    }
}
