package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.core.packet.AethSyndrome;
import org.junit.jupiter.api.Test;

/**
 * Reliability for XRC is RC's (IBA 9.7.9.1: the initiator works as an RC requester, the
 * target as an RC responder): every test of {@link RcReliabilityTest} runs here on an XRC
 * initiator and target pair, whose messages go to one XRC SRQ. End-to-end credits, which XRC
 * does not carry, are RC's alone ({@link EndToEndCreditsTest}); here is the XRC rule instead.
 */
class XrcReliabilityTest extends RcReliabilityTest {
    @Override
    boolean xrc() {
        return true;
    }

    /** o9-114.a10: the target's ACKs carry the "invalid" credit code, however many WQEs its SRQs hold. */
    @Test
    void xrcAcksCarryTheInvalidCreditCode() {
        try (RcFixture f = fixture(130)) {
            var sentB = Wiretap.sent(f.wireB);
            for (int i = 0; i < 6; i++) {
                recv(f, i);
            }
            f.postA(send(f, 1, 8));
            f.await(f.cqA);
            assertEquals("XRC_ACKNOWLEDGE", sentB.get(0).opcode());
            assertEquals(AethSyndrome.ack(AethSyndrome.CREDITS_INVALID), sentB.get(0).syndrome());
        }
    }
}
