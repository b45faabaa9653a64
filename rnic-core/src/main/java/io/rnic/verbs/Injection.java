package io.rnic.verbs;

import java.util.Objects;

/**
 * An error to inject into a device with {@link RdmaDevice#inject}: it takes the path the real
 * error takes, so the application sees the same asynchronous events and completions, in the same
 * order, as when the device meets that error itself. For testing how an application handles
 * failures it cannot easily provoke.
 */
public final class Injection {
    private enum Kind { QP_ERROR, CQ_OVERFLOW, SRQ_ERROR, LOCAL_PROTECTION_ERROR, DEVICE_FATAL }

    private final Kind kind;
    private final Object target;

    private Injection(Kind kind, Object target) {
        this.kind = kind;
        this.target = target;
    }

    /**
     * {@code qp} fails as on a fatal error it detects itself: the event QP_FATAL, the QP in ERR,
     * and every outstanding work request completed with WR_FLUSH_ERR. Nothing happens to a QP
     * already in ERR.
     *
     * @param qp the QP
     * @return the injection
     */
    public static Injection qpError(QueuePair qp) {
        return new Injection(Kind.QP_ERROR, Objects.requireNonNull(qp, "qp"));
    }

    /**
     * {@code cq} overflows as when a completion finds it full: the event CQ_ERR (once) and
     * {@link CompletionQueue#hasOverflowed()} from then on. The completions it holds stay.
     *
     * @param cq the CQ
     * @return the injection
     */
    public static Injection cqOverflow(CompletionQueue cq) {
        return new Injection(Kind.CQ_OVERFLOW, Objects.requireNonNull(cq, "cq"));
    }

    /**
     * {@code srq} fails: the event SRQ_ERR, and every QP that takes its receive WQEs from it goes
     * to ERR (each raising QP_LAST_WQE_REACHED, as a QP on a shared receive queue does in ERR).
     *
     * @param srq the shared receive queue
     * @return the injection
     */
    public static Injection srqError(SharedReceiveQueue srq) {
        return new Injection(Kind.SRQ_ERROR, Objects.requireNonNull(srq, "srq"));
    }

    /**
     * The next send work request of {@code qp} that has not started yet fails its local key check:
     * it completes with LOC_PROT_ERR and the QP goes to ERR, the rest flushed, as when the
     * application names a wrong key. {@link RdmaDevice#inject} throws
     * {@link IllegalStateException} if no such work request (with a non-empty first
     * scatter/gather entry) is waiting: post it first.
     *
     * @param qp the QP
     * @return the injection
     */
    public static Injection localProtectionError(QueuePair qp) {
        return new Injection(Kind.LOCAL_PROTECTION_ERROR, Objects.requireNonNull(qp, "qp"));
    }

    /**
     * The device fails: the event DEVICE_FATAL, then every QP and EE context in ERR with its work
     * flushed. The device stays open, so the application can poll the flushed completions and
     * close it, as it must close a failed device.
     *
     * @return the injection
     */
    public static Injection deviceFatal() {
        return new Injection(Kind.DEVICE_FATAL, null);
    }

    /** The device the injection's object belongs to, or {@code null} for a device-wide one. */
    RdmaDevice device() {
        return switch (kind) {
            case QP_ERROR, LOCAL_PROTECTION_ERROR -> ((QueuePair) target).device();
            case CQ_OVERFLOW -> ((CompletionQueue) target).device();
            case SRQ_ERROR -> ((SharedReceiveQueue) target).pd().device();
            case DEVICE_FATAL -> null;
        };
    }

    /** Applies the injection on {@code device}'s protocol thread. */
    void apply(RdmaDevice device, java.util.Collection<io.rnic.core.engine.QpContext> contexts) {
        switch (kind) {
            case QP_ERROR -> io.rnic.core.engine.InjectedErrors.fatal(((QueuePair) target).core, AsyncEvent.Type.QP_FATAL);
            case LOCAL_PROTECTION_ERROR -> {
                QueuePair qp = (QueuePair) target;
                io.rnic.core.engine.InjectedErrors.localProtection(qp.core);
            }
            case CQ_OVERFLOW -> ((CompletionQueue) target).core.injectOverflow();
            case SRQ_ERROR -> {
                SharedReceiveQueue srq = (SharedReceiveQueue) target;
                device.raise(new AsyncEvent(AsyncEvent.Type.SRQ_ERR, srq.srqn(),
                        "SRQ " + srq.srqn() + " failed (injected)"));
                for (io.rnic.core.engine.QpContext qp : contexts) {
                    if (qp.srq() == srq.core) {
                        io.rnic.core.engine.InjectedErrors.fatal(qp, null);
                    }
                }
            }
            case DEVICE_FATAL -> {
                device.raise(new AsyncEvent(AsyncEvent.Type.DEVICE_FATAL, -1,
                        "device " + device.gid() + " failed (injected)"));
                for (io.rnic.core.engine.QpContext qp : contexts) {
                    io.rnic.core.engine.InjectedErrors.fatal(qp, null);
                }
            }
        }
    }

    @Override
    public String toString() {
        return "Injection[" + kind + (target == null ? "" : " " + target) + "]";
    }
}
