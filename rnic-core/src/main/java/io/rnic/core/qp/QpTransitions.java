package io.rnic.core.qp;

import static io.rnic.verbs.QpAttrMask.ACCESS_FLAGS;
import static io.rnic.verbs.QpAttrMask.ALT_PATH;
import static io.rnic.verbs.QpAttrMask.LOSS_RECOVERY;
import static io.rnic.verbs.QpAttrMask.AV;
import static io.rnic.verbs.QpAttrMask.CUR_STATE;
import static io.rnic.verbs.QpAttrMask.DEST_QPN;
import static io.rnic.verbs.QpAttrMask.EN_SQD_ASYNC_NOTIFY;
import static io.rnic.verbs.QpAttrMask.MAX_DEST_RD_ATOMIC;
import static io.rnic.verbs.QpAttrMask.MAX_QP_RD_ATOMIC;
import static io.rnic.verbs.QpAttrMask.MIN_RNR_TIMER;
import static io.rnic.verbs.QpAttrMask.PATH_MIG_STATE;
import static io.rnic.verbs.QpAttrMask.PATH_MTU;
import static io.rnic.verbs.QpAttrMask.PKEY_INDEX;
import static io.rnic.verbs.QpAttrMask.PORT;
import static io.rnic.verbs.QpAttrMask.QKEY;
import static io.rnic.verbs.QpAttrMask.RETRY_CNT;
import static io.rnic.verbs.QpAttrMask.RNR_RETRY;
import static io.rnic.verbs.QpAttrMask.RQ_PSN;
import static io.rnic.verbs.QpAttrMask.SQ_PSN;
import static io.rnic.verbs.QpAttrMask.STATE;
import static io.rnic.verbs.QpAttrMask.TIMEOUT;
import static io.rnic.verbs.QpState.ERR;
import static io.rnic.verbs.QpState.INIT;
import static io.rnic.verbs.QpState.RESET;
import static io.rnic.verbs.QpState.RTR;
import static io.rnic.verbs.QpState.RTS;
import static io.rnic.verbs.QpState.SQD;
import static io.rnic.verbs.QpState.SQE;

import io.rnic.core.psn.Psn;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The legal modify-QP transitions and their attribute masks, the kernel's {@code qp_state_table}
 * ({@code ib_modify_qp_is_ok}) as given in reference §6.2, plus the attribute range checks of
 * rxe's {@code rxe_qp_chk_attr}.
 *
 * <p>The table is data: one {@link Rule} per (QP type, from, to) that is legal, with the mask
 * bits it requires and the ones it accepts. {@link QpAttrMask#STATE} is accepted everywhere and
 * is what makes a call a state change; without it the call changes attributes within the current
 * state, which is legal only where the table has an "X → X" row (INIT, RTS, SQD; RESET and ERR
 * with no attributes). No transition accepts {@link QpAttrMask#CAP}.
 */
public final class QpTransitions {
    /**
     * Device and port limits the attribute values are checked against.
     *
     * @param maxMtu the port's largest path MTU
     * @param maxQpRdAtom the device's {@code max_qp_rd_atom}, the bound of max_rd_atomic and
     *     max_dest_rd_atomic
     * @param pkeyTableSize the number of P_Key table entries; pkey_index must be below it
     * @param ports the number of ports, numbered from 1
     */
    public record Limits(PathMtu maxMtu, int maxQpRdAtom, int pkeyTableSize, int ports) {
        /** rxe's limits: MTU 4096, max_qp_rd_atom 128, one P_Key, one port. */
        public static final Limits RXE = new Limits(PathMtu.MTU_4096, 128, 1, 1);

        // Checks the limits themselves.
        public Limits {
            if (maxMtu == null) {
                throw new IllegalArgumentException("limits maxMtu must not be null");
            }
            if (maxQpRdAtom < 0) {
                throw new IllegalArgumentException("limits maxQpRdAtom " + maxQpRdAtom + " must not be negative");
            }
            if (pkeyTableSize < 1) {
                throw new IllegalArgumentException("limits pkeyTableSize " + pkeyTableSize + " must be at least 1");
            }
            if (ports < 1) {
                throw new IllegalArgumentException("limits ports " + ports + " must be at least 1");
            }
        }
    }

    /**
     * One legal transition.
     *
     * @param type the QP type
     * @param from the current state
     * @param to the target state
     * @param required the {@link QpAttrMask} bits the call must set (besides STATE)
     * @param optional the bits it may also set
     */
    public record Rule(QpType type, QpState from, QpState to, int required, int optional) {
        /** Every bit the call may set: STATE, required and optional bits. */
        public int accepted() {
            return STATE | required | optional;
        }

        @Override
        public String toString() {
            return from + " -> " + to + " for " + type + " requires {" + QpAttrMask.names(required) + "} accepts {"
                    + QpAttrMask.names(optional) + "}";
        }
    }

    // ---- The table of reference §6.2 ----

    /** Columns of a table line, in the reference's order. */
    private static final QpType[] COLUMNS = {QpType.UD, QpType.UC, QpType.RC, QpType.XRC_SEND, QpType.XRC_RECV, QpType.RD};

    private static final int UC_RTR_REQ = AV | PATH_MTU | DEST_QPN | RQ_PSN;
    private static final int RC_RTR_REQ = UC_RTR_REQ | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER;
    private static final int UC_RTR_OPT = ALT_PATH | ACCESS_FLAGS | PKEY_INDEX;
    private static final int RC_RTS_REQ = TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC;
    private static final int UD_RTS_OPT = CUR_STATE | QKEY;
    private static final int UC_RTS_OPT = CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE;
    private static final int RC_RTS_OPT = UC_RTS_OPT | MIN_RNR_TIMER;
    /**
     * An RD QP's attributes: its Q_Key, access flags and RNR timer; its PSNs, path and retry
     * counts are its EE contexts' (IBA 11.2.9), so none is required past INIT.
     */
    private static final int RD_OPT = PKEY_INDEX | QKEY | ACCESS_FLAGS | MIN_RNR_TIMER;
    private static final int RD_RTS_OPT = CUR_STATE | QKEY | ACCESS_FLAGS | MIN_RNR_TIMER;
    private static final int RC_SQD_OPT = PORT | AV | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC
            | MAX_DEST_RD_ATOMIC | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | MIN_RNR_TIMER | PATH_MIG_STATE;

    /** A legal cell without attributes. */
    private static final Cell NONE = new Cell(0, 0);
    /** Not a legal transition for that type. */
    private static final Cell NO = null;

    private static final QpState[] LEAVABLE = {INIT, RTR, RTS, SQD, SQE, ERR};

    /** Cells: UD, UC, RC, XRC_SEND, XRC_RECV, RD. */
    private static final List<Line> TABLE = List.of(
            line(RESET, RESET, NONE, NONE, NONE, NONE, NONE, NONE),
            line(RESET, INIT,
                    req(PKEY_INDEX | PORT | QKEY),
                    req(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    req(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    req(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    req(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    cell(PKEY_INDEX | PORT | QKEY, ACCESS_FLAGS)),
            line(INIT, INIT,
                    opt(PKEY_INDEX | PORT | QKEY),
                    opt(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    opt(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    opt(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    opt(PKEY_INDEX | PORT | ACCESS_FLAGS),
                    opt(PKEY_INDEX | PORT | QKEY | ACCESS_FLAGS)),
            line(INIT, RTR,
                    opt(PKEY_INDEX | QKEY),
                    cell(UC_RTR_REQ, UC_RTR_OPT),
                    cell(RC_RTR_REQ, UC_RTR_OPT | LOSS_RECOVERY),
                    cell(UC_RTR_REQ, UC_RTR_OPT),
                    cell(RC_RTR_REQ, UC_RTR_OPT),
                    opt(RD_OPT)),
            line(RTR, RTS,
                    cell(SQ_PSN, UD_RTS_OPT),
                    cell(SQ_PSN, UC_RTS_OPT),
                    cell(RC_RTS_REQ, RC_RTS_OPT),
                    cell(RC_RTS_REQ, UC_RTS_OPT),
                    cell(TIMEOUT | SQ_PSN, RC_RTS_OPT),
                    opt(RD_RTS_OPT)),
            line(RTS, RTS,
                    opt(UD_RTS_OPT), opt(UC_RTS_OPT), opt(RC_RTS_OPT), opt(UC_RTS_OPT), opt(RC_RTS_OPT), opt(RD_RTS_OPT)),
            line(RTS, SQD,
                    opt(EN_SQD_ASYNC_NOTIFY), opt(EN_SQD_ASYNC_NOTIFY), opt(EN_SQD_ASYNC_NOTIFY),
                    opt(EN_SQD_ASYNC_NOTIFY), opt(EN_SQD_ASYNC_NOTIFY), opt(EN_SQD_ASYNC_NOTIFY)),
            line(SQD, RTS,
                    opt(UD_RTS_OPT), opt(UC_RTS_OPT), opt(RC_RTS_OPT), opt(UC_RTS_OPT), opt(RC_RTS_OPT), opt(RD_RTS_OPT)),
            line(SQD, SQD,
                    opt(PKEY_INDEX | QKEY),
                    opt(AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE),
                    opt(RC_SQD_OPT),
                    opt(RC_SQD_OPT & ~(MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER)),
                    opt(RC_SQD_OPT & ~(RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC)),
                    opt(RD_OPT)),
            // Only UC, UD and RD have SQE; the kernel table would let RC through with STATE alone.
            line(SQE, RTS,
                    opt(UD_RTS_OPT), opt(CUR_STATE | ACCESS_FLAGS), NO, NO, NO, opt(RD_RTS_OPT)));

    /** Types whose cells are another column's: the kernel's table gives the GSI (QP1) UD's. */
    private static final java.util.Map<QpType, List<QpType>> SAME_CELLS = java.util.Map.of(QpType.UD, List.of(QpType.GSI));
    private static final Rule[][][] RULES = new Rule[QpType.values().length][QpState.values().length][];
    private static final List<Rule> ALL_RULES;

    static {
        List<Line> lines = new ArrayList<>(TABLE);
        // Any state but RESET may go to RESET and to ERR, with no attributes.
        for (QpState from : LEAVABLE) {
            lines.add(line(from, RESET, NONE, NONE, NONE, NONE, NONE, NONE));
            lines.add(line(from, ERR, NONE, NONE, NONE, NONE, NONE, NONE));
        }
        List<Rule> all = new ArrayList<>();
        for (Line l : lines) {
            for (int c = 0; c < COLUMNS.length; c++) {
                Cell cell = l.cells[c];
                if (cell == NO) {
                    continue;
                }
                QpType type = COLUMNS[c];
                Rule[] row = RULES[type.ordinal()][l.from.ordinal()];
                if (row == null) {
                    row = RULES[type.ordinal()][l.from.ordinal()] = new Rule[QpState.values().length];
                }
                if (row[l.to.ordinal()] != null) {
                    throw new AssertionError("duplicate table line " + l.from + " -> " + l.to);
                }
                Rule rule = new Rule(type, l.from, l.to, cell.required, cell.optional);
                row[l.to.ordinal()] = rule;
                all.add(rule);
                for (QpType same : SAME_CELLS.getOrDefault(type, List.of())) {
                    Rule alias = new Rule(same, l.from, l.to, cell.required, cell.optional);
                    Rule[] aliasRow = RULES[same.ordinal()][l.from.ordinal()];
                    if (aliasRow == null) {
                        aliasRow = RULES[same.ordinal()][l.from.ordinal()] = new Rule[QpState.values().length];
                    }
                    aliasRow[l.to.ordinal()] = alias;
                    all.add(alias);
                }
            }
        }
        ALL_RULES = Collections.unmodifiableList(all);
    }

    private QpTransitions() {
    }

    /** The rule for {@code from -> to} on a {@code type} QP, or {@code null} if it is not legal. */
    public static Rule rule(QpType type, QpState from, QpState to) {
        Rule[] row = RULES[type.ordinal()][from.ordinal()];
        return row == null ? null : row[to.ordinal()];
    }

    /**
     * The shortest sequence of legal transitions from {@code from} to {@code to}, both included,
     * or an empty list if none leads there.
     */
    public static List<QpState> legalPath(QpType type, QpState from, QpState to) {
        QpState[] states = QpState.values();
        QpState[] previous = new QpState[states.length];
        boolean[] seen = new boolean[states.length];
        java.util.ArrayDeque<QpState> queue = new java.util.ArrayDeque<>();
        queue.add(from);
        seen[from.ordinal()] = true;
        while (!queue.isEmpty()) {
            QpState s = queue.poll();
            for (QpState next : states) {
                if (!seen[next.ordinal()] && next != s && isLegal(type, s, next)) {
                    seen[next.ordinal()] = true;
                    previous[next.ordinal()] = s;
                    queue.add(next);
                }
            }
        }
        if (from == to || !seen[to.ordinal()]) {
            return List.of();
        }
        java.util.LinkedList<QpState> path = new java.util.LinkedList<>();
        for (QpState s = to; s != null; s = previous[s.ordinal()]) {
            path.addFirst(s);
        }
        return List.copyOf(path);
    }

    /** What to do instead of an illegal transition: the legal path there, or why there is none. */
    private static String hint(QpType type, QpState from, QpState to) {
        if (from == to) {
            return "; a " + type + " QP in " + from + " takes no attribute change without a state change";
        }
        List<QpState> path = legalPath(type, from, to);
        if (path.isEmpty()) {
            return "; no sequence of legal transitions leads from " + from + " to " + to;
        }
        StringBuilder sb = new StringBuilder("; the legal path is ");
        for (int i = 0; i < path.size(); i++) {
            sb.append(i == 0 ? "" : " -> ").append(path.get(i));
        }
        return sb.toString();
    }

    /** True if {@code from -> to} is a legal transition for {@code type}. */
    public static boolean isLegal(QpType type, QpState from, QpState to) {
        return rule(type, from, to) != null;
    }

    /** Every legal transition of every type. */
    public static List<Rule> rules() {
        return ALL_RULES;
    }

    /**
     * The state a modify-QP call leads to: {@code attrs.state()} if {@code mask} has
     * {@link QpAttrMask#STATE}, otherwise {@code current}.
     */
    public static QpState target(QpState current, QpAttributes attrs, int mask) {
        return (mask & STATE) != 0 ? attrs.state() : current;
    }

    /**
     * Checks a modify-QP call as the kernel and rxe do, without changing anything: the transition
     * must be legal for the type, {@code mask} must contain every required bit and no bit outside
     * the required and optional ones, CUR_STATE is only accepted in RTR, RTS, SQD and SQE and must
     * equal {@code current}, and every attribute in {@code mask} must be in range.
     *
     * @param type the QP's type
     * @param current the QP's current state
     * @param attrs the attribute values; only those named by {@code mask} are looked at
     * @param mask the {@link QpAttrMask} bits of the call (often {@code attrs.mask()})
     * @param limits the device and port limits
     * @throws IllegalArgumentException naming the transition and every offending attribute, e.g.
     *     {@code "INIT -> RTR for RC requires AV, DEST_QPN (missing)"}
     */
    public static void validate(QpType type, QpState current, QpAttributes attrs, int mask, Limits limits) {
        if (type == null || current == null || attrs == null || limits == null) {
            throw new IllegalArgumentException("modify QP needs a type, current state, attributes and limits; got "
                    + type + ", " + current + ", " + attrs + ", " + limits);
        }
        int unknown = mask & ~QpAttrMask.ALL;
        if (unknown != 0) {
            throw new IllegalArgumentException("modify QP mask " + QpAttrMask.names(mask)
                    + " has unsupported bits 0x" + Integer.toHexString(unknown));
        }
        QpState to = target(current, attrs, mask);
        if (to == null) {
            throw new IllegalArgumentException("modify QP from " + current + " for " + type
                    + ": STATE is in the mask but the target state is null");
        }
        String transition = current + " -> " + to + " for " + type;
        Rule rule = rule(type, current, to);
        if (rule == null) {
            throw new IllegalArgumentException(current + " -> " + to + " is not a legal transition for " + type
                    + hint(type, current, to));
        }
        if ((mask & CUR_STATE) != 0 && current != RTR && current != RTS && current != SQD && current != SQE) {
            throw new IllegalArgumentException(transition
                    + " does not accept CUR_STATE: it is only accepted when the current state is RTR, RTS, SQD or SQE");
        }
        int missing = rule.required & ~mask;
        int extra = mask & ~rule.accepted();
        if (missing != 0 || extra != 0) {
            StringBuilder sb = new StringBuilder(transition);
            if (missing != 0) {
                sb.append(" requires ").append(QpAttrMask.join(missing, ", ")).append(" (missing)");
            }
            if (extra != 0) {
                sb.append(missing != 0 ? " and" : "").append(" does not accept ").append(QpAttrMask.join(extra, ", "));
            }
            throw new IllegalArgumentException(sb.toString());
        }
        List<String> problems = checkValues(current, attrs, mask, limits);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(transition + ": " + String.join("; ", problems));
        }
    }

    /** Range checks of the attributes named by {@code mask}, in bit order. */
    private static List<String> checkValues(QpState current, QpAttributes a, int mask, Limits limits) {
        List<String> p = new ArrayList<>(0);
        if ((mask & CUR_STATE) != 0 && a.curState() != current) {
            // The emulator knows the real state; a caller that believes otherwise is out of sync.
            p.add("CUR_STATE " + a.curState() + " does not match the current state " + current);
        }
        if ((mask & ACCESS_FLAGS) != 0 && (a.accessFlags() & ~AccessFlags.ALL) != 0) {
            p.add("ACCESS_FLAGS " + AccessFlags.describe(a.accessFlags()) + " has unknown bits 0x"
                    + Integer.toHexString(a.accessFlags() & ~AccessFlags.ALL));
        }
        if ((mask & PKEY_INDEX) != 0) {
            range(p, "PKEY_INDEX", a.pkeyIndex(), 0, limits.pkeyTableSize() - 1,
                    " (P_Key table size " + limits.pkeyTableSize() + ")");
        }
        if ((mask & PORT) != 0) {
            range(p, "PORT", a.port(), 1, limits.ports(), "");
        }
        if ((mask & AV) != 0 && a.av() == null) {
            p.add("AV is in the mask but null");
        }
        if ((mask & PATH_MTU) != 0) {
            if (a.pathMtu() == null) {
                p.add("PATH_MTU is in the mask but null");
            } else if (a.pathMtu().compareTo(limits.maxMtu()) > 0) {
                p.add("PATH_MTU " + a.pathMtu().bytes() + " exceeds the port's maximum " + limits.maxMtu().bytes());
            }
        }
        if ((mask & TIMEOUT) != 0) {
            range(p, "TIMEOUT", a.timeout(), 0, 31, "");
        }
        if ((mask & RETRY_CNT) != 0) {
            range(p, "RETRY_CNT", a.retryCnt(), 0, 7, "");
        }
        if ((mask & RNR_RETRY) != 0) {
            range(p, "RNR_RETRY", a.rnrRetry(), 0, 7, "");
        }
        if ((mask & RQ_PSN) != 0) {
            range(p, "RQ_PSN", a.rqPsn(), 0, Psn.MASK, " (24-bit PSN)");
        }
        if ((mask & MAX_QP_RD_ATOMIC) != 0) {
            range(p, "MAX_QP_RD_ATOMIC", a.maxRdAtomic(), 0, limits.maxQpRdAtom(), " (device max_qp_rd_atom)");
        }
        if ((mask & MIN_RNR_TIMER) != 0) {
            range(p, "MIN_RNR_TIMER", a.minRnrTimer(), 0, 31, "");
        }
        if ((mask & SQ_PSN) != 0) {
            range(p, "SQ_PSN", a.sqPsn(), 0, Psn.MASK, " (24-bit PSN)");
        }
        if ((mask & MAX_DEST_RD_ATOMIC) != 0) {
            range(p, "MAX_DEST_RD_ATOMIC", a.maxDestRdAtomic(), 0, limits.maxQpRdAtom(), " (device max_qp_rd_atom)");
        }
        if ((mask & PATH_MIG_STATE) != 0) {
            range(p, "PATH_MIG_STATE", a.pathMigState(), QpAttributes.MIG_MIGRATED, QpAttributes.MIG_ARMED, "");
        }
        if ((mask & DEST_QPN) != 0) {
            range(p, "DEST_QPN", a.destQpn(), 0, 0xFFFFFF, " (24-bit QP number)");
        }
        return p;
    }

    private static void range(List<String> problems, String name, int value, int min, int max, String why) {
        if (value < min || value > max) {
            problems.add(name + " " + value + " is not in " + min + ".." + max + why);
        }
    }

    // ---- Table construction helpers ----

    private static final class Cell {
        final int required;
        final int optional;

        Cell(int required, int optional) {
            this.required = required;
            this.optional = optional;
        }
    }

    private static final class Line {
        final QpState from;
        final QpState to;
        final Cell[] cells;

        Line(QpState from, QpState to, Cell[] cells) {
            this.from = from;
            this.to = to;
            this.cells = cells;
        }
    }

    private static Line line(QpState from, QpState to, Cell ud, Cell uc, Cell rc, Cell xrcSend, Cell xrcRecv, Cell rd) {
        return new Line(from, to, new Cell[] {ud, uc, rc, xrcSend, xrcRecv, rd});
    }

    private static Cell req(int required) {
        return new Cell(required, 0);
    }

    private static Cell opt(int optional) {
        return new Cell(0, optional);
    }

    private static Cell cell(int required, int optional) {
        return new Cell(required, optional);
    }
}
