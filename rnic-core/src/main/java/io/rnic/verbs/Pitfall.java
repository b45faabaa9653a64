package io.rnic.verbs;

/**
 * A mistake RDMA applications commonly make, which a device notices and warns about: logged once
 * per object through SLF4J at WARN (logger {@code io.rnic.pitfalls}) with its stable code and a
 * one-line fix, and counted at every occurrence ({@link RdmaDevice#pitfallCount}). Each is legal
 * as far as the verbs go, which is why the device carries on exactly as a NIC would; the warning
 * says why the application is about to stall, lose completions or fail on another stack.
 *
 * <p>{@link DeviceConfig#withPitfallWarningsOff} silences the log of any of them; the counts go on.
 */
public enum Pitfall {
    /**
     * {@code RNIC-W001}: a QP keeps receiving SENDs with no receive posted. Every such SEND costs
     * an RNR NAK and a wait of the RNR timer at the sender; logged once the QP has sent
     * {@value #RNR_NAKS_BEFORE_WARNING} of them.
     */
    RNR_NAKS_REPEATED("RNIC-W001", "post receives before the peer sends, and keep the receive queue topped up"),
    /**
     * {@code RNIC-W002}: a QP with a minimum RNR timer below code 12 (0.64 ms; codes 1 to 11,
     * 0.01 to 0.48 ms; code 0 is the longest, 655 ms) and RNR retry 7 (forever). Against a
     * receiver that is short of receives, the sender then retries every few microseconds, forever:
     * the RNR-NAK storm that collapsed the throughput of a Soft-RoCE link with {@code minRnrTimer=1}
     * (slaclab/Simple-10GbE-RUDP-KCU105-Example, pull request 15).
     */
    SHORT_RNR_TIMER_WITH_ENDLESS_RETRY("RNIC-W002",
            "use min_rnr_timer 12 (0.64 ms) or more, as rdma-core's tests do, or a finite rnr_retry"),
    /**
     * {@code RNIC-W003}: a CQ has fewer entries than the work requests of the queues that complete
     * into it (each QP's max_send_wr for its send CQ, max_recv_wr for its receive CQ): once they
     * are all outstanding, the CQ overflows and its QPs fail.
     */
    CQ_SMALLER_THAN_ITS_QUEUES("RNIC-W003",
            "create the CQ with at least the sum of the depths of the queues that complete into it"),
    /**
     * {@code RNIC-W004}: the send queue filled up with unsignaled work requests only. A NIC frees
     * send queue slots when it reports a completion; with none signaled, none is reported, so on
     * hardware the queue never drains.
     */
    UNSIGNALED_SEND_QUEUE_FULL("RNIC-W004",
            "signal at least one send in every max_send_wr (for example every Nth) and poll its completion"),
    /**
     * {@code RNIC-W005}: a send or receive PSN wider than 24 bits passed to modify: it is masked to
     * its low 24 bits (IBA 9.7.1), as real stacks mask it, silently there.
     */
    PSN_WIDER_THAN_24_BITS("RNIC-W005", "pass PSNs below 2^24 (psn & 0xFFFFFF)"),
    /**
     * {@code RNIC-W006}: a QP moved to RESET with work requests outstanding: RESET empties its
     * queues without completions, so those work requests are never reported.
     */
    RESET_WITH_OUTSTANDING_WORK("RNIC-W006",
            "move the QP to ERR and poll the flushed completions before moving it to RESET"),
    /**
     * {@code RNIC-W007}: work posted to a QP in the error state: every request completes with
     * WR_FLUSH_ERR and moves no data.
     */
    POST_TO_ERROR_QP("RNIC-W007",
            "watch the QP's async events and state; reset and reconnect it, or create a new one"),
    /**
     * {@code RNIC-W008}: a READ or atomic arrived at a QP that has no responder resources for it: its
     * max_dest_rd_atomic is 0, or the requester keeps more READs and atomics outstanding than that
     * (its max_rd_atomic is larger). The first is NAKed Invalid Request.
     */
    NO_RESPONDER_RESOURCES("RNIC-W008",
            "set max_dest_rd_atomic at least as large as the peer's max_rd_atomic (and above 0 for READs and atomics)"),
    /**
     * {@code RNIC-W009}: a request named an R_Key whose region or window this device had
     * deregistered, invalidated or rebound: the warning says what the key was and when it ended.
     */
    STALE_RKEY("RNIC-W009",
            "tell the peer a region or window is gone before it is; hand out the new key after a rebind"),
    /**
     * {@code RNIC-W010}: a message arrived that is longer than the receive buffer it took: the
     * receive completes with LOC_LEN_ERR. The warning names both sizes.
     */
    RECEIVE_BUFFER_TOO_SHORT("RNIC-W010",
            "post receive buffers as large as the largest SEND the peer posts (UD: plus 40 bytes for the GRH)");

    /** RNR NAKs a QP sends before {@link #RNR_NAKS_REPEATED} is logged. */
    public static final int RNR_NAKS_BEFORE_WARNING = 16;

    private final String code;
    private final String fix;

    Pitfall(String code, String fix) {
        this.code = code;
        this.fix = fix;
    }

    /**
     * The stable code, {@code RNIC-W001} to {@code RNIC-W010}.
     *
     * @return the code
     */
    public String code() {
        return code;
    }

    /**
     * What to do instead, in one line.
     *
     * @return the fix
     */
    public String fix() {
        return fix;
    }
}
