package io.rnic.verbs;

/**
 * The attributes of a modify-QP call ({@code struct ibv_qp_attr}), mutable. Each fluent setter
 * also sets its {@link QpAttrMask} bit, so an application builds the attributes and gets the mask
 * with them:
 *
 * <pre>{@code
 * QpAttributes a = new QpAttributes().state(QpState.RTR).av(av).pathMtu(PathMtu.MTU_1024)
 *         .destQpn(peerQpn).rqPsn(peerPsn).maxDestRdAtomic(1).minRnrTimer(12);
 * qp.modify(a); // the same as qp.modify(a, a.mask())
 * }</pre>
 *
 * <p>Setters store values as given; ranges, and which attributes a transition requires or
 * allows, are checked by {@link QueuePair#modify(QpAttributes, int)}. Not thread-safe.
 */
public final class QpAttributes {
    /** {@code path_mig_state} MIGRATED ({@code IBV_MIG_MIGRATED}). */
    public static final int MIG_MIGRATED = 0;
    /** {@code path_mig_state} REARM ({@code IBV_MIG_REARM}). */
    public static final int MIG_REARM = 1;
    /** {@code path_mig_state} ARMED ({@code IBV_MIG_ARMED}). */
    public static final int MIG_ARMED = 2;

    private int mask;
    private QpState state;
    private QpState curState;
    private boolean enSqdAsyncNotify;
    private int accessFlags;
    private int pkeyIndex;
    private int port;
    private int qkey;
    private AddressVector av;
    private PathMtu pathMtu;
    private int timeout;
    private int retryCnt;
    private int rnrRetry;
    private int rqPsn;
    private int maxRdAtomic;
    private int minRnrTimer;
    private int sqPsn;
    private int maxDestRdAtomic;
    private int pathMigState;
    private int destQpn;
    private LossRecovery lossRecovery = LossRecovery.GO_BACK_N;

    /** Empty attributes with an empty mask. */
    public QpAttributes() {
    }

    /**
     * The attribute mask these attributes carry ({@code attr_mask} of {@code ibv_modify_qp}).
     *
     * @return the {@link QpAttrMask} bits of every attribute set since creation or {@link #clearMask()}
     */
    public int mask() {
        return mask;
    }

    /**
     * Forgets which attributes were set; the values stay.
     *
     * @return {@code this}
     */
    public QpAttributes clearMask() {
        mask = 0;
        return this;
    }

    /**
     * The target state ({@link QpAttrMask#STATE}).
     *
     * @return the target state, or null if never set
     */
    public QpState state() {
        return state;
    }

    /**
     * Sets the target state and {@link QpAttrMask#STATE}.
     *
     * @param state the target {@code qp_state}
     * @return {@code this}
     */
    public QpAttributes state(QpState state) {
        java.util.Objects.requireNonNull(state, "state");
        this.state = state;
        mask |= QpAttrMask.STATE;
        return this;
    }

    /**
     * The state the caller believes the QP is in ({@link QpAttrMask#CUR_STATE}).
     *
     * @return the assumed current state, or null if never set
     */
    public QpState curState() {
        return curState;
    }

    /**
     * Sets the assumed current state and {@link QpAttrMask#CUR_STATE}.
     *
     * @param curState the assumed {@code cur_qp_state}
     * @return {@code this}
     */
    public QpAttributes curState(QpState curState) {
        java.util.Objects.requireNonNull(curState, "curState");
        this.curState = curState;
        mask |= QpAttrMask.CUR_STATE;
        return this;
    }

    /**
     * Whether to raise SQ_DRAINED when entering SQD completes ({@link QpAttrMask#EN_SQD_ASYNC_NOTIFY}).
     *
     * @return the {@code en_sqd_async_notify} flag
     */
    public boolean enSqdAsyncNotify() {
        return enSqdAsyncNotify;
    }

    /**
     * Sets the SQ-drained notification and {@link QpAttrMask#EN_SQD_ASYNC_NOTIFY}.
     *
     * @param enSqdAsyncNotify whether to raise {@link AsyncEvent.Type#SQ_DRAINED}
     * @return {@code this}
     */
    public QpAttributes enSqdAsyncNotify(boolean enSqdAsyncNotify) {
        this.enSqdAsyncNotify = enSqdAsyncNotify;
        mask |= QpAttrMask.EN_SQD_ASYNC_NOTIFY;
        return this;
    }

    /**
     * The remote operations the QP accepts, {@link AccessFlags} bits ({@link QpAttrMask#ACCESS_FLAGS}).
     *
     * @return the {@code qp_access_flags}
     */
    public int accessFlags() {
        return accessFlags;
    }

    /**
     * Sets the QP access flags and {@link QpAttrMask#ACCESS_FLAGS}.
     *
     * @param accessFlags {@link AccessFlags} bits ({@code qp_access_flags})
     * @return {@code this}
     */
    public QpAttributes accessFlags(int accessFlags) {
        this.accessFlags = accessFlags;
        mask |= QpAttrMask.ACCESS_FLAGS;
        return this;
    }

    /**
     * The index of the QP's P_Key in the port's P_Key table ({@link QpAttrMask#PKEY_INDEX}).
     *
     * @return the {@code pkey_index}
     */
    public int pkeyIndex() {
        return pkeyIndex;
    }

    /**
     * Sets the P_Key index and {@link QpAttrMask#PKEY_INDEX}.
     *
     * @param pkeyIndex the {@code pkey_index}
     * @return {@code this}
     */
    public QpAttributes pkeyIndex(int pkeyIndex) {
        this.pkeyIndex = pkeyIndex;
        mask |= QpAttrMask.PKEY_INDEX;
        return this;
    }

    /**
     * The port number, counted from 1 ({@link QpAttrMask#PORT}).
     *
     * @return the {@code port_num}
     */
    public int port() {
        return port;
    }

    /**
     * Sets the port number and {@link QpAttrMask#PORT}.
     *
     * @param port the {@code port_num}, counted from 1
     * @return {@code this}
     */
    public QpAttributes port(int port) {
        this.port = port;
        mask |= QpAttrMask.PORT;
        return this;
    }

    /**
     * The Q_Key of a UD QP ({@link QpAttrMask#QKEY}).
     *
     * @return the {@code qkey}
     */
    public int qkey() {
        return qkey;
    }

    /**
     * Sets the Q_Key and {@link QpAttrMask#QKEY}.
     *
     * @param qkey the {@code qkey}
     * @return {@code this}
     */
    public QpAttributes qkey(int qkey) {
        this.qkey = qkey;
        mask |= QpAttrMask.QKEY;
        return this;
    }

    /**
     * The primary path to the peer ({@link QpAttrMask#AV}).
     *
     * @return the {@code ah_attr}, or null if never set
     */
    public AddressVector av() {
        return av;
    }

    /**
     * Sets the primary path and {@link QpAttrMask#AV}.
     *
     * @param av the primary path ({@code ah_attr})
     * @return {@code this}
     */
    public QpAttributes av(AddressVector av) {
        java.util.Objects.requireNonNull(av, "av");
        this.av = av;
        mask |= QpAttrMask.AV;
        return this;
    }

    /**
     * The path MTU ({@link QpAttrMask#PATH_MTU}).
     *
     * @return the {@code path_mtu}, or null if never set
     */
    public PathMtu pathMtu() {
        return pathMtu;
    }

    /**
     * Sets the path MTU and {@link QpAttrMask#PATH_MTU}.
     *
     * @param pathMtu the {@code path_mtu}
     * @return {@code this}
     */
    public QpAttributes pathMtu(PathMtu pathMtu) {
        java.util.Objects.requireNonNull(pathMtu, "pathMtu");
        this.pathMtu = pathMtu;
        mask |= QpAttrMask.PATH_MTU;
        return this;
    }

    /**
     * The local ACK timeout exponent, 4.096 µs × 2^timeout, 0 = infinite ({@link QpAttrMask#TIMEOUT}).
     *
     * @return the {@code timeout} exponent
     */
    public int timeout() {
        return timeout;
    }

    /**
     * Sets the local ACK timeout and {@link QpAttrMask#TIMEOUT}.
     *
     * @param timeout the {@code timeout} exponent, 0..31
     * @return {@code this}
     */
    public QpAttributes timeout(int timeout) {
        this.timeout = timeout;
        mask |= QpAttrMask.TIMEOUT;
        return this;
    }

    /**
     * The transport retry count, 0..7 ({@link QpAttrMask#RETRY_CNT}).
     *
     * @return the {@code retry_cnt}
     */
    public int retryCnt() {
        return retryCnt;
    }

    /**
     * Sets the retry count and {@link QpAttrMask#RETRY_CNT}.
     *
     * @param retryCnt the {@code retry_cnt}, 0..7
     * @return {@code this}
     */
    public QpAttributes retryCnt(int retryCnt) {
        this.retryCnt = retryCnt;
        mask |= QpAttrMask.RETRY_CNT;
        return this;
    }

    /**
     * The RNR retry count, 0..7 with 7 = infinite ({@link QpAttrMask#RNR_RETRY}).
     *
     * @return the {@code rnr_retry}
     */
    public int rnrRetry() {
        return rnrRetry;
    }

    /**
     * Sets the RNR retry count and {@link QpAttrMask#RNR_RETRY}.
     *
     * @param rnrRetry the {@code rnr_retry}, 0..7
     * @return {@code this}
     */
    public QpAttributes rnrRetry(int rnrRetry) {
        this.rnrRetry = rnrRetry;
        mask |= QpAttrMask.RNR_RETRY;
        return this;
    }

    /**
     * The first PSN the receive side expects ({@link QpAttrMask#RQ_PSN}).
     *
     * @return the {@code rq_psn}
     */
    public int rqPsn() {
        return rqPsn;
    }

    /**
     * Sets the receive PSN and {@link QpAttrMask#RQ_PSN}.
     *
     * @param rqPsn the {@code rq_psn}, 24 bits
     * @return {@code this}
     */
    public QpAttributes rqPsn(int rqPsn) {
        this.rqPsn = rqPsn;
        mask |= QpAttrMask.RQ_PSN;
        return this;
    }

    /**
     * The first PSN the send side uses ({@link QpAttrMask#SQ_PSN}).
     *
     * @return the {@code sq_psn}
     */
    public int sqPsn() {
        return sqPsn;
    }

    /**
     * Sets the send PSN and {@link QpAttrMask#SQ_PSN}.
     *
     * @param sqPsn the {@code sq_psn}, 24 bits
     * @return {@code this}
     */
    public QpAttributes sqPsn(int sqPsn) {
        this.sqPsn = sqPsn;
        mask |= QpAttrMask.SQ_PSN;
        return this;
    }

    /**
     * Outstanding READ/atomic requests allowed as requester ({@link QpAttrMask#MAX_QP_RD_ATOMIC}).
     *
     * @return the {@code max_rd_atomic}
     */
    public int maxRdAtomic() {
        return maxRdAtomic;
    }

    /**
     * Sets the requester READ/atomic limit and {@link QpAttrMask#MAX_QP_RD_ATOMIC}.
     *
     * @param maxRdAtomic the {@code max_rd_atomic}
     * @return {@code this}
     */
    public QpAttributes maxRdAtomic(int maxRdAtomic) {
        this.maxRdAtomic = maxRdAtomic;
        mask |= QpAttrMask.MAX_QP_RD_ATOMIC;
        return this;
    }

    /**
     * READ/atomic responder resources ({@link QpAttrMask#MAX_DEST_RD_ATOMIC}).
     *
     * @return the {@code max_dest_rd_atomic}
     */
    public int maxDestRdAtomic() {
        return maxDestRdAtomic;
    }

    /**
     * Sets the responder resources and {@link QpAttrMask#MAX_DEST_RD_ATOMIC}.
     *
     * @param maxDestRdAtomic the {@code max_dest_rd_atomic}
     * @return {@code this}
     */
    public QpAttributes maxDestRdAtomic(int maxDestRdAtomic) {
        this.maxDestRdAtomic = maxDestRdAtomic;
        mask |= QpAttrMask.MAX_DEST_RD_ATOMIC;
        return this;
    }

    /**
     * The RNR NAK timer code this QP sends as responder, 0..31 ({@link QpAttrMask#MIN_RNR_TIMER}).
     *
     * @return the {@code min_rnr_timer}
     */
    public int minRnrTimer() {
        return minRnrTimer;
    }

    /**
     * Sets the RNR timer code and {@link QpAttrMask#MIN_RNR_TIMER}.
     *
     * @param minRnrTimer the {@code min_rnr_timer} code, 0..31
     * @return {@code this}
     */
    public QpAttributes minRnrTimer(int minRnrTimer) {
        this.minRnrTimer = minRnrTimer;
        mask |= QpAttrMask.MIN_RNR_TIMER;
        return this;
    }

    /**
     * The peer's QP number, 24 bits ({@link QpAttrMask#DEST_QPN}).
     *
     * @return the {@code dest_qp_num}
     */
    public int destQpn() {
        return destQpn;
    }

    /**
     * Sets the peer's QP number and {@link QpAttrMask#DEST_QPN}.
     *
     * @param destQpn the {@code dest_qp_num}, 24 bits
     * @return {@code this}
     */
    public QpAttributes destQpn(int destQpn) {
        this.destQpn = destQpn;
        mask |= QpAttrMask.DEST_QPN;
        return this;
    }

    /**
     * The path migration state, {@link #MIG_MIGRATED}, {@link #MIG_REARM} or {@link #MIG_ARMED}
     * ({@link QpAttrMask#PATH_MIG_STATE}).
     *
     * @return the {@code path_mig_state}
     */
    public int pathMigState() {
        return pathMigState;
    }

    /**
     * Sets the path migration state and {@link QpAttrMask#PATH_MIG_STATE}.
     *
     * @param pathMigState the {@code path_mig_state}: {@link #MIG_MIGRATED}, {@link #MIG_REARM} or
     *     {@link #MIG_ARMED}
     * @return {@code this}
     */
    public QpAttributes pathMigState(int pathMigState) {
        this.pathMigState = pathMigState;
        mask |= QpAttrMask.PATH_MIG_STATE;
        return this;
    }

    /**
     * How the QP recovers from lost and reordered packets ({@link QpAttrMask#LOSS_RECOVERY});
     * {@link LossRecovery#GO_BACK_N} unless set.
     *
     * @return the loss recovery mode
     */
    public LossRecovery lossRecovery() {
        return lossRecovery;
    }

    /**
     * Sets the loss recovery mode and {@link QpAttrMask#LOSS_RECOVERY}: accepted for RC on the INIT
     * to RTR transition. {@link LossRecovery#SELECTIVE} changes the packets, so both sides must set it.
     *
     * @param mode the mode
     * @return {@code this}
     * @throws NullPointerException if {@code mode} is null
     */
    public QpAttributes lossRecovery(LossRecovery mode) {
        this.lossRecovery = java.util.Objects.requireNonNull(mode, "loss recovery mode");
        mask |= QpAttrMask.LOSS_RECOVERY;
        return this;
    }

    /**
     * Makes {@code this} an exact copy of {@code src}, values and mask.
     *
     * @param src the attributes to copy
     * @return {@code this}
     */
    public QpAttributes copyFrom(QpAttributes src) {
        copyFrom(src, QpAttrMask.ALL);
        mask = src.mask;
        return this;
    }

    /**
     * Copies the attributes named by {@code mask} from {@code src} and adds their bits to this
     * mask (how a QP applies a validated modify to the attributes in force).
     *
     * @param src the attributes to copy from
     * @param mask {@link QpAttrMask} bits naming the attributes to copy
     * @return {@code this}
     */
    public QpAttributes copyFrom(QpAttributes src, int mask) {
        // Assign fields directly: the setters would add every bit, not just those in `mask`.
        if ((mask & QpAttrMask.STATE) != 0) {
            state = src.state;
        }
        if ((mask & QpAttrMask.CUR_STATE) != 0) {
            curState = src.curState;
        }
        if ((mask & QpAttrMask.EN_SQD_ASYNC_NOTIFY) != 0) {
            enSqdAsyncNotify = src.enSqdAsyncNotify;
        }
        if ((mask & QpAttrMask.ACCESS_FLAGS) != 0) {
            accessFlags = src.accessFlags;
        }
        if ((mask & QpAttrMask.PKEY_INDEX) != 0) {
            pkeyIndex = src.pkeyIndex;
        }
        if ((mask & QpAttrMask.PORT) != 0) {
            port = src.port;
        }
        if ((mask & QpAttrMask.QKEY) != 0) {
            qkey = src.qkey;
        }
        if ((mask & QpAttrMask.AV) != 0) {
            av = src.av;
        }
        if ((mask & QpAttrMask.PATH_MTU) != 0) {
            pathMtu = src.pathMtu;
        }
        if ((mask & QpAttrMask.TIMEOUT) != 0) {
            timeout = src.timeout;
        }
        if ((mask & QpAttrMask.RETRY_CNT) != 0) {
            retryCnt = src.retryCnt;
        }
        if ((mask & QpAttrMask.RNR_RETRY) != 0) {
            rnrRetry = src.rnrRetry;
        }
        if ((mask & QpAttrMask.RQ_PSN) != 0) {
            rqPsn = src.rqPsn;
        }
        if ((mask & QpAttrMask.MAX_QP_RD_ATOMIC) != 0) {
            maxRdAtomic = src.maxRdAtomic;
        }
        if ((mask & QpAttrMask.MIN_RNR_TIMER) != 0) {
            minRnrTimer = src.minRnrTimer;
        }
        if ((mask & QpAttrMask.SQ_PSN) != 0) {
            sqPsn = src.sqPsn;
        }
        if ((mask & QpAttrMask.MAX_DEST_RD_ATOMIC) != 0) {
            maxDestRdAtomic = src.maxDestRdAtomic;
        }
        if ((mask & QpAttrMask.PATH_MIG_STATE) != 0) {
            pathMigState = src.pathMigState;
        }
        if ((mask & QpAttrMask.DEST_QPN) != 0) {
            destQpn = src.destQpn;
        }
        if ((mask & QpAttrMask.LOSS_RECOVERY) != 0) {
            lossRecovery = src.lossRecovery;
        }
        this.mask |= mask & QpAttrMask.ALL;
        return this;
    }

    /** Lists the attributes whose mask bit is set. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("qp attrs {");
        append(sb, QpAttrMask.STATE, "state", state);
        append(sb, QpAttrMask.CUR_STATE, "cur_state", curState);
        append(sb, QpAttrMask.EN_SQD_ASYNC_NOTIFY, "en_sqd_async_notify", enSqdAsyncNotify);
        append(sb, QpAttrMask.ACCESS_FLAGS, "access_flags", "0x" + Integer.toHexString(accessFlags));
        append(sb, QpAttrMask.PKEY_INDEX, "pkey_index", pkeyIndex);
        append(sb, QpAttrMask.PORT, "port", port);
        append(sb, QpAttrMask.QKEY, "qkey", "0x" + Integer.toHexString(qkey));
        append(sb, QpAttrMask.AV, "av", av);
        append(sb, QpAttrMask.PATH_MTU, "path_mtu", pathMtu);
        append(sb, QpAttrMask.TIMEOUT, "timeout", timeout);
        append(sb, QpAttrMask.RETRY_CNT, "retry_cnt", retryCnt);
        append(sb, QpAttrMask.RNR_RETRY, "rnr_retry", rnrRetry);
        append(sb, QpAttrMask.RQ_PSN, "rq_psn", rqPsn);
        append(sb, QpAttrMask.MAX_QP_RD_ATOMIC, "max_rd_atomic", maxRdAtomic);
        append(sb, QpAttrMask.MIN_RNR_TIMER, "min_rnr_timer", minRnrTimer);
        append(sb, QpAttrMask.SQ_PSN, "sq_psn", sqPsn);
        append(sb, QpAttrMask.MAX_DEST_RD_ATOMIC, "max_dest_rd_atomic", maxDestRdAtomic);
        append(sb, QpAttrMask.PATH_MIG_STATE, "path_mig_state", pathMigState);
        append(sb, QpAttrMask.DEST_QPN, "dest_qp_num", destQpn);
        append(sb, QpAttrMask.LOSS_RECOVERY, "loss_recovery", lossRecovery);
        return sb.append(" }").toString();
    }

    private void append(StringBuilder sb, int bit, String name, Object value) {
        if ((mask & bit) != 0) {
            sb.append(' ').append(name).append('=').append(value);
        }
    }
}
