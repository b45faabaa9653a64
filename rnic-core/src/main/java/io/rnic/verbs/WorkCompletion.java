package io.rnic.verbs;

/**
 * One work completion ({@code struct ibv_wc}). Mutable and reused: completion queues hold a
 * fixed ring of them and {@code poll} copies into the caller's instances, so polling does not
 * allocate. When {@link #status()} is not SUCCESS only wrId, status, qpNum and vendorErr are valid.
 */
public final class WorkCompletion {
    /** {@code IBV_WC_GRH}: a GRH (the RoCEv2 IP header area) is present (UD receives). */
    public static final int WITH_GRH = 1;
    /** {@code IBV_WC_WITH_IMM}: immData is valid. */
    public static final int WITH_IMM = 2;
    /** {@code IBV_WC_WITH_INV}: invalidatedRkey is valid. */
    public static final int WITH_INV = 8;
    /**
     * {@link #vendorErr()} of a reliable datagram message completed in error after its EE context
     * abandoned it, when the RESYNC that followed showed that the responder had completed it
     * (IBA 9.7.8.6.1: the RESYNC acknowledgement's MSN two above the responder's MSN before the
     * message). An atomic or a READ so reported was executed at the responder although it
     * completes in error here; an atomic must not simply be posted again.
     */
    public static final int VENDOR_ERR_RD_KNOWN_COMPLETE = 1;
    /**
     * {@link #vendorErr()} of a reliable datagram message completed in error after its EE context
     * abandoned it, when the RESYNC that followed showed that the responder had not completed it
     * (IBA 9.7.8.6.1: the MSN one above, the RESYNC's own increment): it took no effect there.
     */
    public static final int VENDOR_ERR_RD_KNOWN_INCOMPLETE = 2;

    long wrId;
    WcStatus status = WcStatus.SUCCESS;
    WcOpcode opcode = WcOpcode.SEND;
    int vendorErr;
    int byteLen;
    int immData;
    int invalidatedRkey;
    int qpNum;
    int srcQp;
    int wcFlags;
    int pkeyIndex;
    long completionTimestamp = NO_TIMESTAMP;

    /**
     * {@link #completionTimestampNanos()} of a completion whose CQ does not stamp completions
     * (created without {@link CqInitAttributes#withCompletionTimestamps}).
     */
    public static final long NO_TIMESTAMP = -1;

    /**
     * The caller's tag of the completed work request.
     *
     * @return {@code wr_id}, as posted
     */
    public long wrId() {
        return wrId;
    }

    /**
     * How the work request ended.
     *
     * @return {@code status}; only {@link WcStatus#SUCCESS} means it completed
     */
    public WcStatus status() {
        return status;
    }

    /**
     * What the work request was; valid only on success.
     *
     * @return {@code opcode}
     */
    public WcOpcode opcode() {
        return opcode;
    }

    /**
     * The vendor error syndrome: the additional information of an error completion.
     *
     * @return {@code vendor_err}: 0, or for an abandoned reliable datagram message what the
     *         RESYNC found at the responder ({@link #VENDOR_ERR_RD_KNOWN_COMPLETE},
     *         {@link #VENDOR_ERR_RD_KNOWN_INCOMPLETE})
     */
    public int vendorErr() {
        return vendorErr;
    }

    /**
     * Bytes received (SEND) or the RDMA length (WRITE with immediate).
     *
     * @return {@code byte_len}
     */
    public int byteLen() {
        return byteLen;
    }

    /**
     * Immediate data, exactly the four bytes of the wire's ImmDt as a big-endian int.
     *
     * @return {@code imm_data}, valid if {@link #wcFlags()} has {@link #WITH_IMM}
     */
    public int immData() {
        return immData;
    }

    /**
     * The R_Key a SEND with Invalidate invalidated on this device.
     *
     * @return {@code invalidated_rkey}, valid if {@link #wcFlags()} has {@link #WITH_INV}
     */
    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    /**
     * The local QP the work request was posted to.
     *
     * @return {@code qp_num}
     */
    public int qpNum() {
        return qpNum;
    }

    /**
     * The sender's QP, for receives.
     *
     * @return {@code src_qp}: the DETH source QP of a datagram, the peer QP on a connected QP
     */
    public int srcQp() {
        return srcQp;
    }

    /**
     * What else the completion carries.
     *
     * @return {@code wc_flags}: {@link #WITH_GRH}, {@link #WITH_IMM}, {@link #WITH_INV}
     */
    public int wcFlags() {
        return wcFlags;
    }

    /**
     * The P_Key index of a receive.
     *
     * @return {@code pkey_index}; always 0
     */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /**
     * When the device wrote the completion, by the wire's clock
     * ({@code ibv_wc_read_completion_ts} of a CQ created with
     * {@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}): virtual nanoseconds on the simulated network,
     * exact and the same for the same seed; on the UDP wire the JVM's monotonic
     * {@code System.nanoTime()}, whose origin is arbitrary. Only differences between stamps of
     * one device are meaningful. Non-decreasing in the order completions are polled from one CQ.
     *
     * @return the time in nanoseconds, or {@link #NO_TIMESTAMP} if the CQ does not stamp completions
     */
    public long completionTimestampNanos() {
        return completionTimestamp;
    }

    /**
     * Sets the completion timestamp, as a CQ that stamps completions does when it publishes one.
     *
     * @param nanos the time in nanoseconds, or {@link #NO_TIMESTAMP}
     * @return this
     */
    public WorkCompletion completionTimestampNanos(long nanos) {
        this.completionTimestamp = nanos;
        return this;
    }

    /**
     * Tells whether the work request completed.
     *
     * @return true if {@link #status()} is {@link WcStatus#SUCCESS}
     */
    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /**
     * Copies every field of {@code o}, as {@code poll} does into the caller's instances.
     *
     * @param o the completion to copy
     * @return {@code this}
     */
    public WorkCompletion set(WorkCompletion o) {
        wrId = o.wrId;
        storeStatus(o.status);
        storeOpcode(o.opcode);
        vendorErr = o.vendorErr;
        byteLen = o.byteLen;
        immData = o.immData;
        invalidatedRkey = o.invalidatedRkey;
        qpNum = o.qpNum;
        srcQp = o.srcQp;
        wcFlags = o.wcFlags;
        pkeyIndex = o.pkeyIndex;
        completionTimestamp = o.completionTimestamp;
        return this;
    }

    /**
     * Fills the fields a completion always has: what the device writes for every work request.
     *
     * @param wrId the work request's id
     * @param status how it ended
     * @param opcode what it was
     * @param qpNum the local QP
     * @return this
     */
    public WorkCompletion fill(long wrId, WcStatus status, WcOpcode opcode, int qpNum) {
        java.util.Objects.requireNonNull(opcode, "opcode");
        java.util.Objects.requireNonNull(status, "status");
        this.wrId = wrId;
        storeStatus(status);
        storeOpcode(opcode);
        this.qpNum = qpNum;
        this.vendorErr = 0; // entries are reused: an earlier error's syndrome must not linger
        return this;
    }

    /**
     * Sets the vendor error syndrome of an error completion (after {@link #fill}, which clears it).
     *
     * @param vendorErr the syndrome, {@link #VENDOR_ERR_RD_KNOWN_COMPLETE} or
     *        {@link #VENDOR_ERR_RD_KNOWN_INCOMPLETE} (0: none)
     * @return this
     */
    public WorkCompletion vendorErr(int vendorErr) {
        this.vendorErr = vendorErr;
        return this;
    }

    /**
     * Fills the fields of a successful receive or of a message's length.
     *
     * @param byteLen bytes transferred
     * @param srcQp the sender's QP (datagram receives)
     * @param wcFlags {@link #WITH_GRH}, {@link #WITH_IMM}, {@link #WITH_INV}
     * @param immData the immediate data, if {@link #WITH_IMM}
     * @param invalidatedRkey the invalidated key, if {@link #WITH_INV}
     * @return this
     */
    public WorkCompletion details(int byteLen, int srcQp, int wcFlags, int immData, int invalidatedRkey) {
        this.byteLen = byteLen;
        this.srcQp = srcQp;
        this.wcFlags = wcFlags;
        this.immData = immData;
        this.invalidatedRkey = invalidatedRkey;
        return this;
    }

    // A completion array lives long, and its entries are written on every poll: a store of an
    // unchanged status or opcode would still cost G1's write barrier (a fence) each time.
    private void storeStatus(WcStatus s) {
        if (status != s) {
            status = s;
        }
    }

    private void storeOpcode(WcOpcode o) {
        if (opcode != o) {
            opcode = o;
        }
    }

    /** Resets every field, for reuse. */
    public void clear() {
        wrId = 0;
        storeStatus(WcStatus.SUCCESS);
        storeOpcode(WcOpcode.SEND);
        vendorErr = 0;
        byteLen = 0;
        immData = 0;
        invalidatedRkey = 0;
        qpNum = 0;
        srcQp = 0;
        wcFlags = 0;
        pkeyIndex = 0;
        completionTimestamp = NO_TIMESTAMP;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("wc{wr_id=").append(wrId).append(' ').append(status);
        if (status == WcStatus.SUCCESS) {
            sb.append(' ').append(opcode).append(" byte_len=").append(byteLen);
            if ((wcFlags & WITH_IMM) != 0) {
                sb.append(String.format(" imm=0x%08x", immData));
            }
            if ((wcFlags & WITH_INV) != 0) {
                sb.append(String.format(" inv_rkey=0x%08x", invalidatedRkey));
            }
        }
        if (vendorErr != 0) {
            sb.append(" vendor_err=").append(vendorErr);
        }
        return sb.append(" qp=0x").append(Integer.toHexString(qpNum)).append('}').toString();
    }
}
