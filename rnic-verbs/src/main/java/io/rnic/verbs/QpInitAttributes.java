package io.rnic.verbs;

import io.rnic.core.qp.QpType;
import io.rnic.core.transport.QpCaps;

/**
 * What {@code ibv_create_qp} needs: type, completion queues, queue sizes, and whether every
 * send WR is signaled.
 *
 * @param type      the transport (RC or UC)
 * @param sendCq    where send completions go
 * @param recvCq    where receive completions go
 * @param caps      queue sizes
 * @param signalAll {@code sq_sig_all}
 * @param endToEndCredits advertise receive credits in every AETH and honour the peer's
 *                  (reference §3.1); {@code false} keeps rxe's behaviour: always "invalid", ignore credits
 */
public record QpInitAttributes(QpType type, CompletionQueue sendCq, CompletionQueue recvCq, QpCaps caps,
                               boolean signalAll, boolean endToEndCredits) {
    public QpInitAttributes {
        if (type == null || sendCq == null || recvCq == null || caps == null) {
            throw new IllegalArgumentException("type, sendCq, recvCq and caps are required");
        }
    }

    /** An RC QP with default queue sizes. */
    public static QpInitAttributes rc(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new QpInitAttributes(QpType.RC, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    /** A UC QP with default queue sizes. */
    public static QpInitAttributes uc(CompletionQueue sendCq, CompletionQueue recvCq) {
        return new QpInitAttributes(QpType.UC, sendCq, recvCq, QpCaps.defaults(), false, true);
    }

    public QpInitAttributes withCaps(QpCaps c) {
        return new QpInitAttributes(type, sendCq, recvCq, c, signalAll, endToEndCredits);
    }

    public QpInitAttributes withSignalAll(boolean all) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, all, endToEndCredits);
    }

    /** With or without end-to-end credit flow control ({@code false}: rxe-compatible). */
    public QpInitAttributes withEndToEndCredits(boolean on) {
        return new QpInitAttributes(type, sendCq, recvCq, caps, signalAll, on);
    }
}
