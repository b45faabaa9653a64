package io.rnic.bench.rdmacm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.verbs.IcrcPolicy;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * rping, ucmatose and udaddy say once on stderr what they wait for, and from whom, when a wait
 * lasts (a client with no server, a peer that died), then go on waiting as librdmacm's do.
 */
class WaitNoticeTest {
    private static final long NOTICE = 200_000_000L; // 0.2 s instead of 5 s: the test stays fast

    /** Output a test can watch while another thread writes it. */
    private static final class Captured extends ByteArrayOutputStream {
        final PrintStream stream = new PrintStream(this, true, StandardCharsets.UTF_8);

        synchronized String text() {
            return toString(StandardCharsets.UTF_8);
        }
    }

    @Test
    void aWaitIsMentionedOnceAfterTheNoticeTimeWithWhatAndFromWhom() {
        long[] now = {1_000};
        Captured err = new Captured();
        WaitNotice notice = new WaitNotice("rping", err.stream, 5_000_000_000L, () -> now[0]);
        WaitNotice.Wait w = notice.begin("RDMA_CM_EVENT_ESTABLISHED", "/127.0.0.2:7174");
        w.check();
        now[0] += 4_999_999_999L;
        w.check();
        assertEquals("", err.text(), "nothing before the notice time");
        assertEquals(1, w.untilNotice());
        now[0] += 1;
        w.check();
        now[0] += 50_000_000_000L;
        w.check();
        assertEquals("rping: waiting for RDMA_CM_EVENT_ESTABLISHED from /127.0.0.2:7174 (5 s so far)\n",
                err.text().replace(System.lineSeparator(), "\n"), "one line, once");
        assertTrue(w.said());
    }

    /**
     * Runs {@code tool} on a thread until its stderr shows {@code line}, then stops it (as a user
     * would with ^C): the line came within seconds, once, and the tool was still waiting.
     */
    private static void mentions(CmTool tool, ThrowingRun run, Captured err, String line) throws Exception {
        tool.noticeWaitsAfter(NOTICE);
        Thread t = new Thread(() -> {
            try {
                run.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // stopped by the test
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "cm-tool");
        t.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!err.text().contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        String said = err.text();
        assertTrue(said.contains(line), "expected \"" + line + "\" on stderr, got: " + said);
        assertTrue(t.isAlive(), "still waiting after saying so");
        Thread.sleep(3 * NOTICE / 1_000_000);
        assertEquals(said.indexOf(line), err.text().lastIndexOf(line), "said once: " + err.text());
        t.interrupt();
        t.join(TimeUnit.SECONDS.toMillis(20));
        assertFalse(t.isAlive(), "the tool stopped when interrupted");
    }

    private interface ThrowingRun {
        void run() throws Exception;
    }

    private static InetAddress ip(String a) throws Exception {
        return InetAddress.getByName(a);
    }

    @Test
    void rpingClientWithNoServerSaysItWaitsForTheConnection() throws Exception {
        Captured out = new Captured();
        Captured err = new Captured();
        Rping r = new Rping(new RpingConfig(false, ip("127.0.86.50"), null, "127.0.86.51", 7174, 1, 64, false, false,
                false, 4791, IcrcPolicy.STRICT, null), out.stream, err.stream);
        mentions(r, r::run, err, "rping: waiting for RDMA_CM_EVENT_ESTABLISHED from 127.0.86.50:7174 (0 s so far)");
    }

    @Test
    void rpingServerSaysItWaitsForAClient() throws Exception {
        Captured out = new Captured();
        Captured err = new Captured();
        Rping r = new Rping(new RpingConfig(true, ip("127.0.86.52"), null, "127.0.86.52", 7174, 1, 64, false, false,
                false, 4791, IcrcPolicy.STRICT, null), out.stream, err.stream);
        mentions(r, r::run, err, "rping: waiting for RDMA_CM_EVENT_CONNECT_REQUEST from clients of port 7174");
    }

    @Test
    void ucmatoseClientWithNoServerSaysItWaitsForItsConnections() throws Exception {
        Captured out = new Captured();
        Captured err = new Captured();
        Cmatose c = new Cmatose(new CmToolConfig(false, ip("127.0.86.53"), null, "127.0.86.54", 7471, 2, 5, 100,
                4791, IcrcPolicy.STRICT, null), out.stream, err.stream);
        mentions(c, c::run, err, "cmatose: waiting for RDMA_CM_EVENT_ESTABLISHED (0 of 2 connections established)"
                + " from 127.0.86.53:7471");
    }

    @Test
    void udaddyClientWithNoServerSaysItWaitsForTheSidrReply() throws Exception {
        Captured out = new Captured();
        Captured err = new Captured();
        Udaddy u = new Udaddy(new CmToolConfig(false, ip("127.0.86.55"), null, "127.0.86.56", 7174, 1, 4, 100,
                4791, IcrcPolicy.STRICT, null), out.stream, err.stream);
        mentions(u, u::run, err, "udaddy: waiting for RDMA_CM_EVENT_ESTABLISHED from 127.0.86.55:7174");
    }
}
