package io.rnic.verbs;

/**
 * The bits of libibverbs {@code enum ibv_qp_attr_mask}: which attributes a modify-QP call sets
 * (reference §6.2).
 */
public final class QpAttrMask {
    /** {@code qp_state}: the target state. */
    public static final int STATE = 1 << 0;
    /** {@code cur_qp_state}: the state the caller believes the QP is in. */
    public static final int CUR_STATE = 1 << 1;
    /** {@code en_sqd_async_notify}: raise SQ_DRAINED when the drain completes. */
    public static final int EN_SQD_ASYNC_NOTIFY = 1 << 2;
    /** {@code qp_access_flags}. */
    public static final int ACCESS_FLAGS = 1 << 3;
    /** {@code pkey_index}. */
    public static final int PKEY_INDEX = 1 << 4;
    /** {@code port_num}. */
    public static final int PORT = 1 << 5;
    /** {@code qkey}. */
    public static final int QKEY = 1 << 6;
    /** {@code ah_attr}: the primary path's address vector. */
    public static final int AV = 1 << 7;
    /** {@code path_mtu}. */
    public static final int PATH_MTU = 1 << 8;
    /** {@code timeout}: local ACK timeout exponent. */
    public static final int TIMEOUT = 1 << 9;
    /** {@code retry_cnt}. */
    public static final int RETRY_CNT = 1 << 10;
    /** {@code rnr_retry}. */
    public static final int RNR_RETRY = 1 << 11;
    /** {@code rq_psn}. */
    public static final int RQ_PSN = 1 << 12;
    /** {@code max_rd_atomic}: outstanding READ/atomic requests as requester. */
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    /** {@code alt_ah_attr} and friends: the alternate path. */
    public static final int ALT_PATH = 1 << 14;
    /** {@code min_rnr_timer}. */
    public static final int MIN_RNR_TIMER = 1 << 15;
    /** {@code sq_psn}. */
    public static final int SQ_PSN = 1 << 16;
    /** {@code max_dest_rd_atomic}: READ/atomic responder resources. */
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    /** {@code path_mig_state}. */
    public static final int PATH_MIG_STATE = 1 << 18;
    /** {@code cap}: queue sizes; no modify-QP transition accepts it. */
    public static final int CAP = 1 << 19;
    /** {@code dest_qp_num}. */
    public static final int DEST_QPN = 1 << 20;
    /**
     * rnic's own: how the QP recovers from loss ({@link LossRecovery}); RC, INIT to RTR
     * only. libibverbs has no such bit.
     */
    public static final int LOSS_RECOVERY = 1 << 21;
    /** Every bit above. */
    public static final int ALL = (1 << 22) - 1;
    /** The number of bits above. */
    public static final int COUNT = 22;

    private static final String[] NAMES = {
        "STATE", "CUR_STATE", "EN_SQD_ASYNC_NOTIFY", "ACCESS_FLAGS", "PKEY_INDEX", "PORT", "QKEY", "AV",
        "PATH_MTU", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "RQ_PSN", "MAX_QP_RD_ATOMIC", "ALT_PATH",
        "MIN_RNR_TIMER", "SQ_PSN", "MAX_DEST_RD_ATOMIC", "PATH_MIG_STATE", "CAP", "DEST_QPN", "LOSS_RECOVERY",
    };

    private QpAttrMask() {
    }

    /**
     * The name of a single bit, e.g. {@code "PATH_MTU"} for {@link #PATH_MTU}.
     *
     * @param bit one of the bits above
     * @return the bit's name, as spelled by its constant
     * @throws IllegalArgumentException if {@code bit} is not exactly one of the bits above
     */
    public static String name(int bit) {
        if (Integer.bitCount(bit) != 1 || (bit & ALL) == 0) {
            throw new IllegalArgumentException("0x" + Integer.toHexString(bit) + " is not a single QP attribute mask bit");
        }
        return NAMES[Integer.numberOfTrailingZeros(bit)];
    }

    /**
     * The names of the bits of {@code mask} in bit order joined by {@code '|'}, e.g.
     * {@code "AV|PATH_MTU"}; unknown bits appear as one hex number, no bits as {@code ""}.
     *
     * @param mask attribute mask bits, known or not
     * @return the bits' names
     */
    public static String names(int mask) {
        return join(mask, "|");
    }

    /**
     * The mask named by {@code names}, the inverse of {@link #names(int)}: bit names separated by
     * {@code '|'}, {@code ','} or white space.
     *
     * @param names bit names as {@link #names(int)} writes them; blank for no bits
     * @return the mask
     * @throws IllegalArgumentException naming an unknown bit name
     */
    public static int parse(String names) {
        int mask = 0;
        for (String name : names.trim().split("[|,\\s]+")) {
            if (name.isEmpty()) {
                continue;
            }
            int bit = indexOf(name);
            if (bit < 0) {
                throw new IllegalArgumentException("\"" + name + "\" is not a QP attribute mask bit name");
            }
            mask |= 1 << bit;
        }
        return mask;
    }

    /**
     * The names of the bits of {@code mask} in bit order, joined by {@code separator}; unknown bits
     * appear as one hex number. Error messages use {@code ", "}.
     *
     * @param mask attribute mask bits, known or not
     * @param separator what to put between two names
     * @return the bits' names, {@code ""} for no bits
     */
    public static String join(int mask, String separator) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < COUNT; i++) {
            if ((mask & (1 << i)) != 0) {
                if (sb.length() > 0) {
                    sb.append(separator);
                }
                sb.append(NAMES[i]);
            }
        }
        int unknown = mask & ~ALL;
        if (unknown != 0) {
            if (sb.length() > 0) {
                sb.append(separator);
            }
            sb.append("0x").append(Integer.toHexString(unknown));
        }
        return sb.toString();
    }

    private static int indexOf(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
