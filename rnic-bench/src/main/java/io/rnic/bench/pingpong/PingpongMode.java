package io.rnic.bench.pingpong;

import io.rnic.verbs.QpType;

/**
 * Which of rdma-core's libibverbs example programs a {@code rnic pingpong} run behaves as: each
 * differs in QP type, receive source, record count, buffer layout and defaults (reference §11.2,
 * §11.3).
 */
public enum PingpongMode {
    /** {@code ibv_rc_pingpong}: one RC QP with its own receive queue. */
    RC("ibv_rc_pingpong", QpType.RC, 4096, 0x7b),
    /** {@code ibv_uc_pingpong}: the same over UC. */
    UC("ibv_uc_pingpong", QpType.UC, 4096, 0x7b),
    /**
     * {@code ibv_ud_pingpong}: one UD QP, Q_Key 0x11111111; receive buffers are size + 40 (the
     * GRH area), sends leave from buf + 40.
     */
    UD("ibv_ud_pingpong", QpType.UD, 1024, 0x7b),
    /**
     * {@code ibv_srq_pingpong}: {@code -q} RC QPs sharing one SRQ; always 256 records each way;
     * {@code -n} counts iterations over all QPs together.
     */
    SRQ("ibv_srq_pingpong", QpType.RC, 4096, 0),
    /**
     * {@code ibv_xsrq_pingpong}: per peer an XRC target and an XRC initiator QP, one XRC SRQ per
     * process in the node's XRC domain, 66-byte records, {@code -n} messages each way per client
     * ({@link XsrqPingpong}).
     */
    XRC("ibv_xsrq_pingpong", QpType.XRC_SEND, 4096, 0);

    /** ibv_srq_pingpong's MAX_QP: the records exchanged whatever {@code -q} is. */
    public static final int MAX_QP = 256;
    /** The Q_Key ibv_ud_pingpong uses. */
    public static final int UD_QKEY = 0x11111111;
    /** Bytes of GRH area in front of a UD receive buffer's payload. */
    public static final int GRH = 40;

    private final String program;
    private final QpType type;
    private final int defaultSize;
    private final int fill;

    PingpongMode(String program, QpType type, int defaultSize, int fill) {
        this.program = program;
        this.type = type;
        this.defaultSize = defaultSize;
        this.fill = fill;
    }

    /** The rdma-core program this mode interoperates with. */
    public String program() {
        return program;
    }

    public QpType type() {
        return type;
    }

    /** The program's default {@code -s}. */
    public int defaultSize() {
        return defaultSize;
    }

    /** The byte the program fills its buffer with before the first message. */
    int fill() {
        return fill;
    }

    /** Records each side writes and reads during the exchange. */
    int records() {
        return this == SRQ ? MAX_QP : 1;
    }

    /** Bytes a receive buffer holds before the payload. */
    int receiveHeader() {
        return this == UD ? GRH : 0;
    }
}
