package io.rnic.verbs.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.fault.Faults;
import io.rnic.transport.fault.PacketMatch;
import io.rnic.verbs.Counter;
import io.rnic.verbs.RcOptions;
import io.rnic.verbs.WorkCompletion;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fixture does in a few lines what a protocol test needs, and waits the same way on both wires. */
class RcPairTest {

    /** The example: drop the 3rd packet, see exactly one retransmission (reference §5.3, timeout). */
    @Test
    void droppingTheThirdPacketCostsExactlyOneRetransmission() {
        try (RcPair pair = RcPair.simulated(42)) {
            pair.aToB().fault(Faults.dropNth(PacketMatch.any(), 3));
            for (int i = 0; i < 3; i++) {
                pair.qpA().postSend(pair.write(i, i * 64, 64));
            }
            assertEquals(3, pair.awaitA(3).stream().filter(WorkCompletion::isSuccess).count());
            assertEquals(1, pair.a().counters().get(Counter.RETRANSMITTED_PKTS));
        }
    }

    @Test
    void awaitOnTheSimulatedNetworkRunsVirtualTimeAndGivesUpWhenNothingIsLeftToHappen() throws InterruptedException {
        try (RcPair pair = RcPair.simulated(7)) {
            pair.bufferA().put(0, (byte) 0x5A);
            pair.qpA().postSend(pair.write(1, 0, 1));
            assertTrue(pair.cqA().await(1_000_000_000L), "the WRITE's ACK arrives in virtual time");
            long at = pair.network().scheduler().nanoTime();
            assertTrue(at > 0 && at < 1_000_000, "a microsecond link answers within a millisecond of virtual time: " + at);
            assertEquals((byte) 0x5A, pair.bufferB().get(0));
            assertTrue(pair.cqA().poll(new WorkCompletion()));
            assertFalse(pair.cqA().await(1_000_000_000L), "no work, no completion: await returns instead of hanging");
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pair.awaitB(1));
            assertTrue(e.getMessage().contains("expected 1 completions, got 0"), e.getMessage());
        }
    }

    @Test
    void theSameTestRunsOverUdp() {
        try (RcPair pair = RcPair.udp("127.0.86.1", "127.0.86.2", RcOptions.defaults())) {
            for (int i = 0; i < 256; i++) {
                pair.bufferA().put(i, (byte) i);
            }
            pair.qpA().postSend(pair.write(1, 0, 256));
            pair.qpA().postSend(pair.read(2, 4096, 64)); // B's zeros into A at 4096
            pair.qpB().postRecv(pair.recv(3, 8192, 64));
            pair.qpA().postSend(pair.send(4, 0, 64));
            List<WorkCompletion> a = pair.awaitA(3);
            List<WorkCompletion> b = pair.awaitB(1);
            assertTrue(a.stream().allMatch(WorkCompletion::isSuccess), a.toString());
            assertEquals(64, b.get(0).byteLen());
            for (int i = 0; i < 256; i++) {
                assertEquals((byte) i, pair.bufferB().get(i));
            }
            assertEquals((byte) 63, pair.bufferB().get(8192 + 63));
            assertThrows(IllegalStateException.class, pair::aToB, "faults are a simulated network's");
        }
    }
}
