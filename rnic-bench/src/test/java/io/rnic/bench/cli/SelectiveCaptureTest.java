package io.rnic.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.bench.demo.DemoPair;
import io.rnic.bench.demo.FaultSpec;
import io.rnic.bench.soak.MixedWorkload;
import io.rnic.verbs.LossRecovery;
import io.rnic.verbs.RcOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture of the selective-retransmission protocol is judged by {@code rnic decode} (wire-check and
 * Wireshark know no SRETH): every packet decodes, every ICRC holds, and the SRETH is shown,
 * a selective NAK's bitmap included (docs/packets.md).
 */
class SelectiveCaptureTest {
    @Test
    void rnicDecodeReadsEveryPacketOfTheExtendedProtocol(@TempDir Path dir) throws Exception {
        Path pcap = dir.resolve("sr.pcap");
        FaultSpec faults = new FaultSpec(0.03, 0, 0, 0, 20_000);
        RcOptions o = RcOptions.defaults().withRetry(10, 7, 7).withLossRecovery(LossRecovery.SELECTIVE);
        try (DemoPair p = new DemoPair(false, "10.0.0.2", "10.0.0.3", 4791, 4, o, pcap, w -> w, faults.simSetup())) {
            MixedWorkload.Result r = new MixedWorkload(p, 4).run(500);
            assertTrue(r.ok(), r.firstFailure());
        }
        CliRun run = CliRun.rnic("decode", pcap.toString());
        assertEquals(0, run.status(), run.err());
        assertTrue(run.lastLine().matches("decoded \\d+ packets, 0 rejected, 0 bad ICRC"), run.lastLine());
        assertTrue(run.out().contains("SR_RDMA_WRITE_FIRST"), "the manufacturer opcodes are named");
        assertTrue(run.out().matches("(?s).*SR_SEND_\\w+ .* SRETH\\(off=\\d+ ssn=\\d+ key=0x[0-9a-f]{8} .*"),
                "a SEND's SRETH is shown");
        assertTrue(run.out().matches("(?s).*SR_ACKNOWLEDGE .* SRETH\\(missing=\\+0[,+0-9]*\\) AETH\\(NAK.*"),
                "a selective NAK shows what is missing");
    }
}
