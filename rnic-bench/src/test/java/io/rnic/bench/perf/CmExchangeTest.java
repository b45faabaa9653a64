package io.rnic.bench.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.verbs.ConnectionInfo;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * perftest's {@code struct pingpong_dest} as its {@code -R} exchange carries it, against a key
 * record of a genuine {@code ib_send_bw -R} run between two Soft-RoCE guests
 * ({@code shared/golden/send_bw_rdmacm_64.pcap}, frame 31).
 */
class CmExchangeTest {
    /** LID 0, 1 outstanding read, QPN 0x1f, PSN 0xe4d772, R_Key 0, address 0x561f2fee2000, GID ::ffff:169.254.77.12. */
    static final byte[] GOLDEN = HexFormat.of().parseHex("00000000000000010000001f00e4d77200000000000000000000561f"
            + "2fee200000000000000000000000ffffa9fe4d0c0000000000000001");

    @Test
    void aGoldenPingpongDestReadsAsTheKeyRecordTheTcpExchangeCarriesAndBack() {
        byte[] text = CmExchange.toText(GOLDEN);
        ConnectionInfo ci = PerfExchange.parse(text);
        assertEquals(0x1f, ci.qpn());
        assertEquals(0xe4d772, ci.psn());
        assertEquals(0x561f2fee2000L, ci.address());
        assertEquals("169.254.77.12", ci.gid().toInetAddress().getHostAddress());
        assertArrayEquals(GOLDEN, CmExchange.toBinary(text), "field for field, GID index 1 as perftest -x 1 sends");
        assertEquals(PerfExchange.RECORD, text.length);
    }
}
