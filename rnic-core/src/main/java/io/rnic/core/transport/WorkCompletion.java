package io.rnic.core.transport;

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

    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    public WcOpcode opcode() {
        return opcode;
    }

    public int vendorErr() {
        return vendorErr;
    }

    /** Bytes received (SEND) or the RDMA length (WRITE with immediate). */
    public int byteLen() {
        return byteLen;
    }

    /** Immediate data, exactly the four bytes of the wire's ImmDt as a big-endian int. */
    public int immData() {
        return immData;
    }

    public int invalidatedRkey() {
        return invalidatedRkey;
    }

    public int qpNum() {
        return qpNum;
    }

    public int srcQp() {
        return srcQp;
    }

    public int wcFlags() {
        return wcFlags;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public boolean isSuccess() {
        return status == WcStatus.SUCCESS;
    }

    /** Copies every field of {@code o}. */
    public WorkCompletion set(WorkCompletion o) {
        wrId = o.wrId;
        status = o.status;
        opcode = o.opcode;
        vendorErr = o.vendorErr;
        byteLen = o.byteLen;
        immData = o.immData;
        invalidatedRkey = o.invalidatedRkey;
        qpNum = o.qpNum;
        srcQp = o.srcQp;
        wcFlags = o.wcFlags;
        pkeyIndex = o.pkeyIndex;
        return this;
    }

    void clear() {
        wrId = 0;
        status = WcStatus.SUCCESS;
        opcode = WcOpcode.SEND;
        vendorErr = 0;
        byteLen = 0;
        immData = 0;
        invalidatedRkey = 0;
        qpNum = 0;
        srcQp = 0;
        wcFlags = 0;
        pkeyIndex = 0;
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
        return sb.append(" qp=0x").append(Integer.toHexString(qpNum)).append('}').toString();
    }
}
