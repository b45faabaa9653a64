package io.rnic.bench.rdmacm;

import io.rnic.transport.pcap.PcapCapture;
import io.rnic.transport.udp.Gso;
import io.rnic.transport.udp.UdpWire;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.DeviceConfig;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.RdmaDevice;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.cm.CmEvent;
import io.rnic.verbs.cm.CmEventChannel;
import io.rnic.verbs.cm.CmEventType;
import java.io.PrintStream;

/**
 * What librdmacm's example programs share: one emulated HCA with its own protocol thread (the
 * connection manager answers while the program waits), an event channel, and their way of
 * waiting for an event or for completions and of reporting a wrong one. A wait that lasts a few
 * seconds says once on stderr what it waits for and from whom ({@link WaitNotice}), then goes on.
 */
abstract class CmTool {
    static final long WAIT = 60_000_000_000L;

    final String program;
    final PrintStream out;
    final PrintStream err;
    CmEventChannel channel;
    private WaitNotice notice;

    CmTool(String program, PrintStream out, PrintStream err) {
        this.program = program;
        this.out = out;
        this.err = err;
        this.notice = new WaitNotice(program, err, WaitNotice.DEFAULT_AFTER_NANOS, System::nanoTime);
    }

    /** Mentions a wait after {@code nanos} instead of {@link WaitNotice#DEFAULT_AFTER_NANOS} (for tests). */
    final CmTool noticeWaitsAfter(long nanos) {
        notice = new WaitNotice(program, err, nanos, System::nanoTime);
        return this;
    }

    /** Starts a wait for {@code what} from {@code from}: check it while waiting. */
    final WaitNotice.Wait waiting(String what, Object from) {
        return notice.begin(what, from);
    }

    /**
     * The next event within {@code timeoutNanos} ({@code Long.MAX_VALUE}: no limit), or null;
     * a long wait is mentioned on stderr as waiting for {@code what} from {@code from}.
     */
    final CmEvent event(long timeoutNanos, String what, Object from) throws InterruptedException {
        WaitNotice.Wait w = waiting(what, from);
        long start = System.nanoTime();
        for (;;) {
            w.check();
            long left = timeoutNanos - (System.nanoTime() - start);
            if (left <= 0) {
                return null;
            }
            CmEvent e = channel.getEvent(Math.min(left, w.untilNotice()));
            if (e != null) {
                return e;
            }
        }
    }

    /**
     * Opens the HCA (capturing its packets to {@code pcap} unless null) and the channel, runs
     * {@link #run(RdmaDevice)}; the exit status.
     */
    final int open(String ip, int udpPort, IcrcPolicy icrc, java.nio.file.Path pcap) throws InterruptedException {
        io.rnic.core.wire.Wire wire = UdpWire.bind(ip).port(udpPort).gso(Gso.OFF).open();
        try (PcapCapture capture = pcap == null ? null : new PcapCapture(pcap).attach(wire);
             RdmaDevice dev = RdmaDevice.open(wire, DeviceConfig.defaults().withIcrcPolicy(icrc));
             CmEventChannel ch = CmEventChannel.create(dev)) {
            channel = ch;
            return run(dev);
        } catch (java.io.IOException e) {
            wire.close();
            throw new java.io.UncheckedIOException("capture " + pcap + ": " + e.getMessage(), e);
        }
    }

    abstract int run(RdmaDevice dev) throws InterruptedException;

    /**
     * The next event, from {@code from}, if it is {@code type}; otherwise prints it as the program
     * does and returns null.
     */
    final CmEvent expect(CmEventType type, Object from) throws InterruptedException {
        CmEvent e = event(WAIT, "RDMA_CM_EVENT_" + type, from);
        if (e == null) {
            err.printf("%s: no %s event in %d s%n", program, "RDMA_CM_EVENT_" + type, WAIT / 1_000_000_000L);
            return null;
        }
        if (e.type() != type) {
            out.printf("%s: event: RDMA_CM_EVENT_%s, error: %d%n", program, e.type(), e.status());
            return null;
        }
        return e;
    }

    /**
     * Polls {@code cq} until {@code n} completions of {@code what} came from {@code from}; false
     * (having said why) on an error or a stall.
     */
    final boolean poll(CompletionQueue cq, int n, String what, Object from,
                       java.util.function.Consumer<WorkCompletion> each) throws InterruptedException {
        WorkCompletion wc = new WorkCompletion();
        long deadline = System.nanoTime() + WAIT;
        WaitNotice.Wait w = waiting(n + " " + what + " completions", from);
        for (int got = 0; got < n;) {
            w.check();
            if (cq.poll(wc)) {
                if (!wc.isSuccess()) {
                    out.printf("%s: failed polling CQ: %d%n", program, wc.status().value());
                    return false;
                }
                each.accept(wc);
                got++;
            } else if (System.nanoTime() > deadline) {
                out.printf("%s: only %d of %d completions in %d s%n", program, got, n, WAIT / 1_000_000_000L);
                return false;
            } else {
                cq.await(1_000_000);
            }
        }
        return true;
    }
}
