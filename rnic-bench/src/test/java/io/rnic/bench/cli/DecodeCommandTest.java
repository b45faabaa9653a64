package io.rnic.bench.cli;

import static io.rnic.bench.cli.CliRun.pcap;
import static io.rnic.bench.cli.CliRun.rnic;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DecodeCommandTest {

    @Test
    void cleanCaptureExits0WithOneLinePerPacketAndTheSummary() {
        CliRun r = rnic("decode", pcap("good.pcap"));
        assertEquals(0, r.status(), r.toString());
        List<String> lines = r.outLines();
        assertEquals(19, lines.size());
        assertEquals("1 127.0.0.1 -> 127.0.0.2 RC_SEND_ONLY qp=0x000012 psn=100 ack=1 payload=5 icrc=ok", lines.get(0));
        assertEquals("decoded 18 packets, 0 rejected, 0 bad ICRC", r.lastLine());
        assertEquals("", r.err());
    }

    @Test
    void goldenCapturesFromSoftRoce() {
        CliRun r = rnic("decode", pcap("atomic_fadd.pcap"), pcap("ud_pingpong_64.pcap"));
        assertEquals(0, r.status(), r.toString());
        assertEquals("decoded 18 packets, 0 rejected, 0 bad ICRC", r.lastLine());
        assertTrue(r.out().contains("atomic_fadd.pcap:20 169.254.77.12 -> 169.254.77.11 RC_FETCH_ADD qp=0x00001b"), r.out());
        assertTrue(r.out().contains("ud_pingpong_64.pcap:12 169.254.77.12 -> 169.254.77.11 UD_SEND_ONLY qp=0x000014"), r.out());
        assertTrue(r.out().contains(" DETH(qkey=0x11111111 srcqp=0x000014) payload=64 icrc=ok"), r.out());
        assertTrue(r.outLines().stream().limit(r.outLines().size() - 1).allMatch(l -> l.startsWith(pcap(""))),
                "with several files every packet line names its file");
    }

    /** A GSI packet names the management datagram it carries: the Linux CM's REQ ... DREP of rping. */
    @Test
    void connectionManagerMessagesAreNamed() {
        CliRun r = rnic("decode", pcap("rping_rdmacm.pcap"));
        assertEquals(0, r.status(), r.toString());
        assertEquals("decoded 29 packets, 0 rejected, 0 bad ICRC", r.lastLine());
        assertTrue(r.outLines().get(0).endsWith("DETH(qkey=0x80010000 srcqp=0x000001) MAD(CM REQ tid=0x000000022a1ca4cc)"
                + " payload=256 icrc=ok"), r.out());
        for (String m : new String[] {"REP", "RTU", "DREQ", "DREP"}) {
            assertTrue(r.out().contains(" MAD(CM " + m + " tid="), m + " in " + r.out());
        }
    }

    @Test
    void badIcrcExits1() {
        CliRun r = rnic("decode", pcap("bad-corrupt-icrc.pcap"));
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.outLines().get(0).endsWith(" icrc=bad"), r.out());
        assertEquals("decoded 1 packets, 0 rejected, 1 bad ICRC", r.lastLine());
    }

    @Test
    void rejectedPacketExits1() {
        CliRun r = rnic("decode", pcap("bad-tver-nonzero.pcap"), pcap("good.pcap"));
        assertEquals(1, r.status(), r.toString());
        assertTrue(r.out().contains(" REJECTED TVER_NONZERO: BTH transport version is not 0 opcode=0x04"), r.out());
        assertEquals("decoded 19 packets, 1 rejected, 0 bad ICRC", r.lastLine());
    }

    @Test
    void ipIdOption() {
        assertEquals(1, rnic("decode", pcap("bad-icrc-ipid-mismatch.pcap")).status());
        CliRun r = rnic("decode", "--ip-id", "0", pcap("bad-icrc-ipid-mismatch.pcap"));
        assertEquals(0, r.status(), r.toString());
        assertTrue(r.outLines().get(0).endsWith(" icrc=ok"), r.out());
        assertEquals(1, rnic("decode", "--ip-id=0x1234", pcap("bad-icrc-ipid-mismatch.pcap")).status(),
                "0x1234 is the captured ID, the one the sender did not use");
        CliRun bad = rnic("decode", "--ip-id", "70000", pcap("good.pcap"));
        assertEquals(2, bad.status());
        assertTrue(bad.err().startsWith("rnic decode: --ip-id: 70000 is out of range 0..65535"), bad.err());
        assertEquals("", bad.out(), "nothing decoded after a usage error");
    }

    @Test
    void portOption() {
        CliRun r = rnic("decode", "--port", "4792", "--port", "5000", pcap("good.pcap"));
        assertEquals(0, r.status(), r.toString());
        assertEquals(2, rnic("decode", "--port", "x", pcap("good.pcap")).status());
        assertEquals(2, rnic("decode", "--port").status());
    }

    @Test
    void quietPrintsOnlyTheSummary() {
        CliRun r = rnic("decode", "-q", pcap("good.pcap"), pcap("bad-corrupt-icrc.pcap"));
        assertEquals(1, r.status());
        assertEquals("decoded 19 packets, 0 rejected, 1 bad ICRC\n", r.out());
        assertEquals(r.out(), rnic("decode", "--quiet", pcap("good.pcap"), pcap("bad-corrupt-icrc.pcap")).out());
    }

    @Test
    void unreadableFilesExit2ButTheOthersAreStillDecoded(@TempDir Path dir) throws IOException {
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a capture\n");
        Path empty = Files.write(dir.resolve("empty.pcap"), new byte[0]);
        CliRun r = rnic("decode", dir.resolve("missing.pcap").toString(), text.toString(), empty.toString(),
                dir.toString(), pcap("good.pcap"));
        assertEquals(2, r.status(), r.toString());
        assertTrue(r.err().contains("rnic decode: " + dir.resolve("missing.pcap") + ": no such file"), r.err());
        assertTrue(r.err().contains("rnic decode: " + text + ": not a pcap or pcapng capture (starts with 6e 6f 74 20)"), r.err());
        assertTrue(r.err().contains("rnic decode: " + empty + ": empty file"), r.err());
        assertTrue(r.err().contains("rnic decode: " + dir + ": "), r.err());
        assertEquals("decoded 18 packets, 0 rejected, 0 bad ICRC", r.lastLine());
    }

    @Test
    void truncatedCaptureDecodesWhatIsThereAndWarns(@TempDir Path dir) throws IOException {
        byte[] whole = Files.readAllBytes(Path.of(pcap("good.pcap")));
        Path cut = Files.write(dir.resolve("cut.pcap"), Arrays.copyOf(whole, whole.length - 30));
        CliRun r = rnic("decode", cut.toString());
        assertEquals(0, r.status(), r.toString());
        assertEquals("decoded 17 packets, 0 rejected, 0 bad ICRC", r.lastLine());
        assertTrue(r.err().startsWith("rnic decode: warning: " + cut + ": frame 18 truncated"), r.err());
    }

    @Test
    void usageErrorsAndHelp() {
        CliRun none = rnic("decode");
        assertEquals(2, none.status());
        assertEquals("rnic decode: Missing required parameter: 'FILE'\nTry 'rnic decode --help' for more information.\n",
                none.err());
        CliRun help = rnic("decode", "--help");
        assertEquals(0, help.status());
        assertTrue(help.out().startsWith("Usage: rnic decode [OPTIONS] FILE...\n"), help.out());
        for (String option : new String[] {"--port=N", "--ip-id=N", "-q, --quiet", "-h, --help", "Exit status"}) {
            assertTrue(help.out().contains(option), option + " in\n" + help.out());
        }
        assertEquals(2, rnic("decode", "--verbose", pcap("good.pcap")).status());
    }
}
