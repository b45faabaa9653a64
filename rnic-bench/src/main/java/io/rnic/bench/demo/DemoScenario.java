package io.rnic.bench.demo;

import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SendWorkRequest;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import java.io.PrintStream;
import java.nio.ByteBuffer;

/**
 * What every demo scenario shares: a {@link DemoPair}, one printed line per check, a count of
 * passed and failed checks, and the checks of a completion and of bytes.
 */
public abstract class DemoScenario {
    protected final DemoPair p;
    protected final PrintStream out;
    protected final WorkCompletion wc = new WorkCompletion();
    protected final SendWorkRequest swr = new SendWorkRequest();
    protected final RecvWorkRequest rwr = new RecvWorkRequest();
    private int passed;
    private int failed;

    protected DemoScenario(DemoPair pair, PrintStream out) {
        this.p = pair;
        this.out = out;
    }

    /** Runs every step; returns the number of failed checks. */
    public abstract int run() throws InterruptedException;

    /** One line describing the QPs, printed before the checks. */
    public abstract String describe();

    public int passed() {
        return passed;
    }

    public int failed() {
        return failed;
    }

    protected void check(String what, boolean ok, String detail) {
        if (ok) {
            passed++;
        } else {
            failed++;
        }
        out.printf("  %-44s %s%s%n", what, ok ? "ok" : "FAIL", ok || detail == null ? "" : "  (" + detail + ")");
    }

    /**
     * Waits for the next completion on {@code cq} and checks it: success, {@code wrId},
     * {@code op}, and {@code byteLen} unless negative. The completion stays in {@link #wc}.
     */
    protected boolean completion(CompletionQueue cq, long wrId, WcOpcode op, int byteLen, String what)
            throws InterruptedException {
        if (!p.await(cq, wc)) {
            check(what, false, "no completion");
            return false;
        }
        boolean ok = wc.status() == WcStatus.SUCCESS && wc.wrId() == wrId && wc.opcode() == op
                && (byteLen < 0 || wc.byteLen() == byteLen);
        check(what, ok, wc.toString());
        return ok;
    }

    protected static void fill(ByteBuffer b, int off, int len, int seed) {
        for (int i = 0; i < len; i++) {
            b.put(off + i, (byte) (seed * 7 + i * 13));
        }
    }

    protected static boolean same(ByteBuffer x, int xo, ByteBuffer y, int yo, int len) {
        for (int i = 0; i < len; i++) {
            if (x.get(xo + i) != y.get(yo + i)) {
                return false;
            }
        }
        return true;
    }
}
