package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.core.packet.OpcodeTable;
import io.rnic.core.packet.PacketFields;
import org.junit.jupiter.api.Test;

/**
 * The two congestion signals of RoCEv2 reach the QP they concern: a CNP (opcode 0x81, RoCEv2
 * Annex A17: BTH with the sender's P_Key and the data sender's QP, PSN 0, 16 reserved bytes) is
 * handed to the QP it names instead of being dropped as a packet of another transport, and only
 * when it comes from the QP's peer with its P_Key; a CE mark in the IP header is counted at the
 * receiving QP (the fabric tests mark packets on the way; here the point-to-point links carry none).
 */
class CongestionSignalsTest {
    private static PacketFields cnp(int destQp, int pkey) {
        PacketFields f = new PacketFields().opcode(OpcodeTable.of(0x81));
        f.destQp = destQp;
        f.pkey = pkey;
        f.psn = 0;
        return f;
    }

    @Test
    void aCnpFromThePeerReachesTheQpItNames() {
        try (RcFixture f = new RcFixture(1)) {
            Wiretap.inject(f.wireB, 0xC101, f.wireA, cnp(f.qpA.qpn(), 0xFFFF));
            f.net.scheduler().runUntilIdle();
            assertEquals(1, f.a.counters().get(Counter.RP_CNP_IGNORED), "the QP got it (and has no congestion control yet)");
            assertEquals(0, f.a.counters().get(Counter.RCVD_WRONG_QP_STATE_OR_TYPE), "not dropped as another transport's");
        }
    }

    @Test
    void aCnpWithAnotherPKeyOrFromAStrangerIsDroppedAndCounted() {
        try (RcFixture f = new RcFixture(1)) {
            Wiretap.inject(f.wireB, 0xC101, f.wireA, cnp(f.qpA.qpn(), 0x1234));
            var stranger = f.net.attach("10.0.0.99");
            Wiretap.inject(stranger, 0xC101, f.wireA, cnp(f.qpA.qpn(), 0xFFFF));
            f.net.scheduler().runUntilIdle();
            assertEquals(0, f.a.counters().get(Counter.RP_CNP_IGNORED));
            assertEquals(1, f.a.counters().get(Counter.BAD_PKEY_CNTR));
            assertEquals(1, f.a.counters().get(Counter.RCVD_ADDR_MISMATCH));
        }
    }
}
