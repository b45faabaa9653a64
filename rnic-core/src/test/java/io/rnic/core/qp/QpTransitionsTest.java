package io.rnic.core.qp;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.qp.QpTransitions.Limits;
import io.rnic.core.qp.QpTransitions.Rule;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

class QpTransitionsTest {

    private static final Limits LIMITS = new Limits(PathMtu.MTU_4096, 16, 1, 1);

    /**
     * Reference §6.2 transcribed independently of the production table, one line per
     * (type, from, to), every "same as" expanded: {@code TYPE FROM TO [req BITS] [opt BITS]}.
     * Lines for RESET -> RESET and for any -> RESET / ERR are added by {@link #expected()}.
     */
    private static final String REFERENCE_TABLE = String.join("\n",
            "UD RESET INIT req PKEY_INDEX|PORT|QKEY",
            "UD INIT INIT opt PKEY_INDEX|PORT|QKEY",
            "UD INIT RTR opt PKEY_INDEX|QKEY",
            "UD RTR RTS req SQ_PSN opt CUR_STATE|QKEY",
            "UD RTS RTS opt CUR_STATE|QKEY",
            "UD RTS SQD opt EN_SQD_ASYNC_NOTIFY",
            "UD SQD RTS opt CUR_STATE|QKEY",
            "UD SQD SQD opt PKEY_INDEX|QKEY",
            "UD SQE RTS opt CUR_STATE|QKEY",

            "UC RESET INIT req PKEY_INDEX|PORT|ACCESS_FLAGS",
            "UC INIT INIT opt PKEY_INDEX|PORT|ACCESS_FLAGS",
            "UC INIT RTR req AV|PATH_MTU|DEST_QPN|RQ_PSN opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX",
            "UC RTR RTS req SQ_PSN opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE",
            "UC RTS RTS opt CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE",
            "UC RTS SQD opt EN_SQD_ASYNC_NOTIFY",
            "UC SQD RTS opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE",
            "UC SQD SQD opt AV|ALT_PATH|ACCESS_FLAGS|PKEY_INDEX|PATH_MIG_STATE",
            "UC SQE RTS opt CUR_STATE|ACCESS_FLAGS",

            "RC RESET INIT req PKEY_INDEX|PORT|ACCESS_FLAGS",
            "RC INIT INIT opt PKEY_INDEX|PORT|ACCESS_FLAGS",
            // LOSS_RECOVERY is rnic's own bit (out-of-order reception), not the reference's: RC, at RTR only.
            "RC INIT RTR req AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER"
                    + " opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX|LOSS_RECOVERY",
            "RC RTR RTS req TIMEOUT|RETRY_CNT|RNR_RETRY|SQ_PSN|MAX_QP_RD_ATOMIC"
                    + " opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE|MIN_RNR_TIMER",
            "RC RTS RTS opt CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE|MIN_RNR_TIMER",
            "RC RTS SQD opt EN_SQD_ASYNC_NOTIFY",
            "RC SQD RTS opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE|MIN_RNR_TIMER",
            "RC SQD SQD opt PORT|AV|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|MAX_DEST_RD_ATOMIC|ALT_PATH"
                    + "|ACCESS_FLAGS|PKEY_INDEX|MIN_RNR_TIMER|PATH_MIG_STATE",

            "XRC_SEND RESET INIT req PKEY_INDEX|PORT|ACCESS_FLAGS",
            "XRC_SEND INIT INIT opt PKEY_INDEX|PORT|ACCESS_FLAGS",
            "XRC_SEND INIT RTR req AV|PATH_MTU|DEST_QPN|RQ_PSN opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX",
            "XRC_SEND RTR RTS req TIMEOUT|RETRY_CNT|RNR_RETRY|SQ_PSN|MAX_QP_RD_ATOMIC"
                    + " opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE",
            "XRC_SEND RTS RTS opt CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE",
            "XRC_SEND RTS SQD opt EN_SQD_ASYNC_NOTIFY",
            "XRC_SEND SQD RTS opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE",
            "XRC_SEND SQD SQD opt PORT|AV|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC|ALT_PATH|ACCESS_FLAGS"
                    + "|PKEY_INDEX|PATH_MIG_STATE",

            "XRC_RECV RESET INIT req PKEY_INDEX|PORT|ACCESS_FLAGS",
            "XRC_RECV INIT INIT opt PKEY_INDEX|PORT|ACCESS_FLAGS",
            "XRC_RECV INIT RTR req AV|PATH_MTU|DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER"
                    + " opt ALT_PATH|ACCESS_FLAGS|PKEY_INDEX",
            "XRC_RECV RTR RTS req TIMEOUT|SQ_PSN opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE|MIN_RNR_TIMER",
            "XRC_RECV RTS RTS opt CUR_STATE|ACCESS_FLAGS|ALT_PATH|PATH_MIG_STATE|MIN_RNR_TIMER",
            "XRC_RECV RTS SQD opt EN_SQD_ASYNC_NOTIFY",
            "XRC_RECV SQD RTS opt CUR_STATE|ALT_PATH|ACCESS_FLAGS|PATH_MIG_STATE|MIN_RNR_TIMER",
            "XRC_RECV SQD SQD opt PORT|AV|TIMEOUT|MAX_DEST_RD_ATOMIC|ALT_PATH|ACCESS_FLAGS|PKEY_INDEX"
                    + "|MIN_RNR_TIMER|PATH_MIG_STATE",

            // RD QPs (IBA 11.2.4.2 for RD): the Q_Key, access flags and RNR timer are the QP's;
            // its path, PSNs and retry counts are its EE contexts', which take RC's cells.
            "RD RESET INIT req PKEY_INDEX|PORT|QKEY opt ACCESS_FLAGS",
            "RD INIT INIT opt PKEY_INDEX|PORT|QKEY|ACCESS_FLAGS",
            "RD INIT RTR opt PKEY_INDEX|QKEY|ACCESS_FLAGS|MIN_RNR_TIMER",
            "RD RTR RTS opt CUR_STATE|QKEY|ACCESS_FLAGS|MIN_RNR_TIMER",
            "RD RTS RTS opt CUR_STATE|QKEY|ACCESS_FLAGS|MIN_RNR_TIMER",
            "RD RTS SQD opt EN_SQD_ASYNC_NOTIFY",
            "RD SQD RTS opt CUR_STATE|QKEY|ACCESS_FLAGS|MIN_RNR_TIMER",
            "RD SQD SQD opt PKEY_INDEX|QKEY|ACCESS_FLAGS|MIN_RNR_TIMER",
            "RD SQE RTS opt CUR_STATE|QKEY|ACCESS_FLAGS|MIN_RNR_TIMER");

    /** One expected legal transition. */
    record Expected(QpType type, QpState from, QpState to, int required, int optional) {
        int accepted() {
            return QpAttrMask.STATE | required | optional;
        }

        String key() {
            return type + " " + from + " -> " + to + " req " + QpAttrMask.names(required) + " opt "
                    + QpAttrMask.names(optional);
        }

        @Override
        public String toString() {
            return type + " " + from + " -> " + to;
        }
    }

    static List<Expected> expected() {
        List<Expected> list = new ArrayList<>();
        for (String line : REFERENCE_TABLE.split("\n")) {
            String[] t = line.trim().split("\\s+");
            int req = 0;
            int opt = 0;
            for (int i = 3; i < t.length; i += 2) {
                if (t[i].equals("req")) {
                    req = QpAttrMask.parse(t[i + 1]);
                } else if (t[i].equals("opt")) {
                    opt = QpAttrMask.parse(t[i + 1]);
                } else {
                    throw new AssertionError("bad line " + line);
                }
            }
            list.add(new Expected(QpType.valueOf(t[0]), QpState.valueOf(t[1]), QpState.valueOf(t[2]), req, opt));
            if (t[0].equals("UD")) { // the kernel's qp_state_table gives IB_QPT_GSI UD's cells
                list.add(new Expected(QpType.GSI, QpState.valueOf(t[1]), QpState.valueOf(t[2]), req, opt));
            }
        }
        for (QpType type : QpType.values()) {
            list.add(new Expected(type, QpState.RESET, QpState.RESET, 0, 0));
            for (QpState from : QpState.values()) {
                if (from != QpState.RESET) {
                    list.add(new Expected(type, from, QpState.RESET, 0, 0));
                    list.add(new Expected(type, from, QpState.ERR, 0, 0));
                }
            }
        }
        return list;
    }

    static Stream<Expected> legal() {
        return expected().stream();
    }

    static Stream<Arguments> illegal() {
        Set<String> legal = new TreeSet<>();
        for (Expected e : expected()) {
            legal.add(e.type + " " + e.from + " " + e.to);
        }
        List<Arguments> out = new ArrayList<>();
        for (QpType type : QpType.values()) {
            for (QpState from : QpState.values()) {
                for (QpState to : QpState.values()) {
                    if (!legal.contains(type + " " + from + " " + to)) {
                        out.add(Arguments.of(type, from, to));
                    }
                }
            }
        }
        return out.stream();
    }

    /** Attributes with a valid value for every field, moving from {@code from} to {@code to}. */
    static QpAttributes validAttrs(QpState from, QpState to) throws Exception {
        return new QpAttributes().state(to).curState(from).enSqdAsyncNotify(true)
                .accessFlags(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_ATOMIC)
                .pkeyIndex(0).port(1).qkey(0x11111111)
                .av(AddressVector.of(InetAddress.getByName("10.0.0.2"))).pathMtu(PathMtu.MTU_1024)
                .timeout(14).retryCnt(7).rnrRetry(7).rqPsn(0xFFFFFF).maxRdAtomic(16).minRnrTimer(12).sqPsn(0)
                .maxDestRdAtomic(16).pathMigState(QpAttributes.MIG_MIGRATED).destQpn(0xFFFFFF);
    }

    private static IllegalArgumentException rejects(Expected e, int mask) throws Exception {
        QpAttributes attrs = validAttrs(e.from, e.to);
        return assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(e.type, e.from, attrs, mask, LIMITS),
                () -> e + " with mask " + QpAttrMask.names(mask) + " should be rejected");
    }

    // ---------------------------------------------------------------- the table itself

    @Test
    void productionTableIsExactlyTheReferenceTable() {
        Set<String> want = new TreeSet<>();
        expected().forEach(e -> want.add(e.key()));
        Set<String> have = new TreeSet<>();
        for (Rule r : QpTransitions.rules()) {
            have.add(new Expected(r.type(), r.from(), r.to(), r.required(), r.optional()).key());
        }
        assertEquals(String.join("\n", want), String.join("\n", have));
        assertEquals(want.size(), QpTransitions.rules().size(), "no duplicate rules");
        assertEquals(151, want.size(), "21 transitions for RC and XRC, 22 for UC, UD, GSI and RD (SQE -> RTS)");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legal")
    void ruleLookupReturnsTheReferenceMasks(Expected e) {
        Rule r = QpTransitions.rule(e.type, e.from, e.to);
        assertEquals(e.required, r.required(), "required");
        assertEquals(e.optional, r.optional(), "optional");
        assertTrue(QpTransitions.isLegal(e.type, e.from, e.to));
    }

    // ---------------------------------------------------------------- every legal transition

    @ParameterizedTest(name = "{0}")
    @MethodSource("legal")
    void legalTransitionSucceedsWithExactlyTheRequiredMask(Expected e) throws Exception {
        int mask = QpAttrMask.STATE | e.required;
        assertDoesNotThrow(() -> QpTransitions.validate(e.type, e.from, validAttrs(e.from, e.to), mask, LIMITS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legal")
    void legalTransitionSucceedsWithEveryOptionalAttributeToo(Expected e) throws Exception {
        int mask = e.accepted();
        assertDoesNotThrow(() -> QpTransitions.validate(e.type, e.from, validAttrs(e.from, e.to), mask, LIMITS));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legal")
    void droppingAnyRequiredAttributeFailsNamingIt(Expected e) throws Exception {
        for (int bit = 1; bit != 0; bit <<= 1) {
            if ((e.required & bit) == 0) {
                continue;
            }
            IllegalArgumentException x = rejects(e, (QpAttrMask.STATE | e.required) & ~bit);
            assertEquals(e.from + " -> " + e.to + " for " + e.type + " requires " + QpAttrMask.name(bit) + " (missing)",
                    x.getMessage());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legal")
    void addingAnyAttributeOutsideRequiredAndOptionalFailsNamingIt(Expected e) throws Exception {
        int tested = 0;
        for (int i = 0; i < QpAttrMask.COUNT; i++) {
            int bit = 1 << i;
            if ((e.accepted() & bit) != 0) {
                continue;
            }
            tested++;
            IllegalArgumentException x = rejects(e, QpAttrMask.STATE | e.required | bit);
            assertTrue(x.getMessage().startsWith(e.from + " -> " + e.to + " for " + e.type + " does not accept "
                    + QpAttrMask.name(bit)), x.getMessage());
        }
        assertEquals(QpAttrMask.COUNT - Integer.bitCount(e.accepted()), tested);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("legal")
    void sameStateRowsAlsoApplyWithoutStateInTheMask(Expected e) throws Exception {
        if (e.from != e.to) {
            return;
        }
        QpAttributes attrs = validAttrs(e.from, QpState.ERR); // target ignored without STATE
        assertDoesNotThrow(() -> QpTransitions.validate(e.type, e.from, attrs, e.optional, LIMITS));
    }

    // ---------------------------------------------------------------- illegal transitions

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("illegal")
    void everyOtherPairIsNotALegalTransition(QpType type, QpState from, QpState to) throws Exception {
        assertFalse(QpTransitions.isLegal(type, from, to));
        assertNull(QpTransitions.rule(type, from, to));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(type, from, validAttrs(from, to), QpAttrMask.STATE, LIMITS));
        assertTrue(x.getMessage().startsWith(from + " -> " + to + " is not a legal transition for " + type + "; "),
                x.getMessage());
        if (from == to) {
            // An attribute change without STATE is the same row and is refused the same way.
            IllegalArgumentException y = assertThrows(IllegalArgumentException.class,
                    () -> QpTransitions.validate(type, from, validAttrs(from, to), 0, LIMITS));
            assertTrue(y.getMessage().contains("is not a legal transition"), y.getMessage());
        }
    }

    @Test
    void anIllegalTransitionNamesTheLegalPath() {
        QpAttributes a = new QpAttributes().state(QpState.RTS);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, a.mask(), LIMITS));
        assertEquals("RESET -> RTS is not a legal transition for RC; the legal path is RESET -> INIT -> RTR -> RTS",
                x.getMessage());
        assertEquals(java.util.List.of(QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS),
                QpTransitions.legalPath(QpType.RC, QpState.RESET, QpState.RTS));
        assertEquals(java.util.List.of(QpState.RESET, QpState.INIT, QpState.ERR),
                QpTransitions.legalPath(QpType.RC, QpState.RESET, QpState.ERR));
    }

    @Test
    void resetToErrIsNotLegal() throws Exception {
        QpAttributes a = new QpAttributes().state(QpState.ERR);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, a.mask(), LIMITS));
        assertTrue(x.getMessage().startsWith("RESET -> ERR is not a legal transition"), x.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = QpType.class, names = {"RC", "XRC_SEND", "XRC_RECV"})
    void sqeToRtsIsOnlyForUcAndUd(QpType type) {
        assertFalse(QpTransitions.isLegal(type, QpState.SQE, QpState.RTS));
        assertTrue(QpTransitions.isLegal(QpType.UC, QpState.SQE, QpState.RTS));
        assertTrue(QpTransitions.isLegal(QpType.UD, QpState.SQE, QpState.RTS));
    }

    // ---------------------------------------------------------------- messages

    @Test
    void missingAttributesAreAllNamed() throws Exception {
        QpAttributes a = new QpAttributes().state(QpState.RTR).pathMtu(PathMtu.MTU_1024).rqPsn(0)
                .maxDestRdAtomic(1).minRnrTimer(12);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.INIT, a, a.mask(), LIMITS));
        assertEquals("INIT -> RTR for RC requires AV, DEST_QPN (missing)", x.getMessage());
    }

    @Test
    void unexpectedAttributeIsNamed() throws Exception {
        QpAttributes a = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                .accessFlags(AccessFlags.REMOTE_WRITE).sqPsn(5);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, a.mask(), LIMITS));
        assertEquals("RESET -> INIT for RC does not accept SQ_PSN", x.getMessage());
    }

    @Test
    void missingAndUnexpectedAreReportedTogether() {
        QpAttributes a = new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1).qkey(7);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, a.mask(), LIMITS));
        assertEquals("RESET -> INIT for RC requires ACCESS_FLAGS (missing) and does not accept QKEY", x.getMessage());
    }

    @Test
    void capIsNeverAccepted() {
        for (Rule r : QpTransitions.rules()) {
            assertEquals(0, r.accepted() & QpAttrMask.CAP, r.toString());
        }
    }

    // ---------------------------------------------------------------- CUR_STATE

    @ParameterizedTest
    @EnumSource(value = QpState.class, names = {"RTR", "RTS", "SQD", "SQE"})
    void curStateIsAcceptedFromRtrRtsSqdSqe(QpState from) throws Exception {
        QpAttributes a = validAttrs(from, QpState.RTS);
        int mask = QpAttrMask.STATE | QpAttrMask.CUR_STATE | (from == QpState.RTR ? QpAttrMask.SQ_PSN : 0);
        assertDoesNotThrow(() -> QpTransitions.validate(QpType.UD, from, a, mask, LIMITS));
    }

    @ParameterizedTest
    @EnumSource(value = QpState.class, names = {"RESET", "INIT", "ERR"})
    void curStateIsRefusedFromOtherStates(QpState from) throws Exception {
        QpAttributes a = validAttrs(from, QpState.RESET);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, from, a, QpAttrMask.STATE | QpAttrMask.CUR_STATE, LIMITS));
        assertTrue(x.getMessage().contains("does not accept CUR_STATE"), x.getMessage());
        assertTrue(x.getMessage().contains("RTR, RTS, SQD or SQE"), x.getMessage());
    }

    @Test
    void curStateMustMatchTheActualState() throws Exception {
        QpAttributes a = validAttrs(QpState.RTR, QpState.RTS).curState(QpState.SQD);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RTS, a, QpAttrMask.STATE | QpAttrMask.CUR_STATE,
                        LIMITS));
        assertEquals("RTS -> RTS for RC: CUR_STATE SQD does not match the current state RTS", x.getMessage());
    }

    // ---------------------------------------------------------------- attribute changes without STATE

    @Test
    void attributeChangeWithoutStateIsCheckedAgainstTheSameStateRow() throws Exception {
        QpAttributes a = new QpAttributes().minRnrTimer(3).accessFlags(AccessFlags.REMOTE_READ);
        assertDoesNotThrow(() -> QpTransitions.validate(QpType.RC, QpState.RTS, a, a.mask(), LIMITS));
        QpAttributes b = new QpAttributes().timeout(3);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RTS, b, b.mask(), LIMITS));
        assertEquals("RTS -> RTS for RC does not accept TIMEOUT", x.getMessage());
        QpAttributes c = new QpAttributes().qkey(3);
        IllegalArgumentException y = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.UD, QpState.RTR, c, c.mask(), LIMITS));
        assertEquals("RTR -> RTR is not a legal transition for UD; a UD QP in RTR takes no attribute change without a "
                + "state change", y.getMessage());
    }

    // ---------------------------------------------------------------- ranges

    static Stream<Arguments> outOfRange() {
        return Stream.of(
                range("TIMEOUT", a -> a.timeout(32)),
                range("TIMEOUT", a -> a.timeout(-1)),
                range("RETRY_CNT", a -> a.retryCnt(8)),
                range("RNR_RETRY", a -> a.rnrRetry(8)),
                range("MIN_RNR_TIMER", a -> a.minRnrTimer(32)),
                range("MAX_QP_RD_ATOMIC", a -> a.maxRdAtomic(LIMITS.maxQpRdAtom() + 1)),
                range("MAX_QP_RD_ATOMIC", a -> a.maxRdAtomic(-1)),
                range("ACCESS_FLAGS", a -> a.accessFlags(0x40)),
                range("PATH_MIG_STATE", a -> a.pathMigState(3)));
    }

    private static Arguments range(String attribute, UnaryOperator<QpAttributes> change) {
        return Arguments.of(attribute, change);
    }

    /** RC RTR -> RTS with every accepted attribute, one of them out of range. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("outOfRange")
    void outOfRangeValueIsRejectedNamingTheAttribute(String attribute, UnaryOperator<QpAttributes> change)
            throws Exception {
        QpAttributes a = change.apply(validAttrs(QpState.RTR, QpState.RTS));
        int mask = QpTransitions.rule(QpType.RC, QpState.RTR, QpState.RTS).accepted();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RTR, a, mask, LIMITS));
        assertTrue(x.getMessage().startsWith("RTR -> RTS for RC: " + attribute + " "), x.getMessage());
    }

    static Stream<Arguments> outOfRangeInitToRtr() {
        return Stream.of(
                range("MAX_DEST_RD_ATOMIC", a -> a.maxDestRdAtomic(LIMITS.maxQpRdAtom() + 1)),
                range("MIN_RNR_TIMER", a -> a.minRnrTimer(-1)),
                range("DEST_QPN", a -> a.destQpn(1 << 24)),
                range("PKEY_INDEX", a -> a.pkeyIndex(LIMITS.pkeyTableSize())));
        // A null path MTU or address vector no longer gets this far: the setters refuse it
        // (NullPointerException naming the parameter, NullArgumentsTest).
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outOfRangeInitToRtr")
    void outOfRangeValueIsRejectedOnInitToRtr(String attribute, UnaryOperator<QpAttributes> change)
            throws Exception {
        QpAttributes a = change.apply(validAttrs(QpState.INIT, QpState.RTR));
        int mask = QpTransitions.rule(QpType.RC, QpState.INIT, QpState.RTR).accepted();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.INIT, a, mask, LIMITS));
        assertTrue(x.getMessage().startsWith("INIT -> RTR for RC: " + attribute + " "), x.getMessage());
    }

    @Test
    void pathMtuAbovePortMaximumIsRejected() throws Exception {
        Limits small = new Limits(PathMtu.MTU_1024, 16, 1, 1);
        QpAttributes ok = validAttrs(QpState.INIT, QpState.RTR).pathMtu(PathMtu.MTU_1024);
        int mask = QpTransitions.rule(QpType.UC, QpState.INIT, QpState.RTR).accepted();
        assertDoesNotThrow(() -> QpTransitions.validate(QpType.UC, QpState.INIT, ok, mask, small));
        QpAttributes big = validAttrs(QpState.INIT, QpState.RTR).pathMtu(PathMtu.MTU_2048);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.UC, QpState.INIT, big, mask, small));
        assertEquals("INIT -> RTR for UC: PATH_MTU 2048 exceeds the port's maximum 1024", x.getMessage());
    }

    @Test
    void onlyPortOneExistsOnASinglePortDevice() throws Exception {
        int mask = QpAttrMask.STATE | QpAttrMask.PKEY_INDEX | QpAttrMask.PORT | QpAttrMask.ACCESS_FLAGS;
        for (int port : new int[] {0, 2}) {
            QpAttributes a = validAttrs(QpState.RESET, QpState.INIT).port(port);
            IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                    () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, mask, LIMITS));
            assertEquals("RESET -> INIT for RC: PORT " + port + " is not in 1..1", x.getMessage());
        }
    }

    @Test
    void allOutOfRangeAttributesAreNamedInOneMessage() throws Exception {
        QpAttributes a = validAttrs(QpState.RTR, QpState.RTS).timeout(40).retryCnt(9);
        int mask = QpTransitions.rule(QpType.RC, QpState.RTR, QpState.RTS).accepted();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RTR, a, mask, LIMITS));
        assertEquals("RTR -> RTS for RC: TIMEOUT 40 is not in 0..31; RETRY_CNT 9 is not in 0..7", x.getMessage());
    }

    @Test
    void boundaryValuesAreAccepted() throws Exception {
        QpAttributes a = validAttrs(QpState.RTR, QpState.RTS).timeout(31).retryCnt(7).rnrRetry(7).minRnrTimer(31)
                .sqPsn(0xFFFFFF).maxRdAtomic(LIMITS.maxQpRdAtom()).pathMigState(QpAttributes.MIG_ARMED)
                .accessFlags(AccessFlags.ALL);
        int mask = QpTransitions.rule(QpType.RC, QpState.RTR, QpState.RTS).accepted();
        assertDoesNotThrow(() -> QpTransitions.validate(QpType.RC, QpState.RTR, a, mask, LIMITS));
    }

    @Test
    void valuesOutsideTheMaskAreNotChecked() {
        QpAttributes a = new QpAttributes().timeout(99).state(QpState.INIT).pkeyIndex(0).port(1).accessFlags(0);
        assertDoesNotThrow(() -> QpTransitions.validate(QpType.RC, QpState.RESET, a,
                a.mask() & ~QpAttrMask.TIMEOUT, LIMITS));
    }

    @Test
    void stateBitWithoutAStateIsRejected() {
        QpAttributes a = new QpAttributes();
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.RESET, a, QpAttrMask.STATE, LIMITS));
        assertTrue(x.getMessage().contains("STATE"), x.getMessage());
    }

    @Test
    void unknownMaskBitsAreRejected() {
        QpAttributes a = new QpAttributes().state(QpState.RESET);
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class,
                () -> QpTransitions.validate(QpType.RC, QpState.INIT, a, QpAttrMask.STATE | 1 << 25, LIMITS));
        assertTrue(x.getMessage().contains("0x2000000"), x.getMessage());
    }

    @Test
    void limitsAreCheckedThemselves() {
        assertThrows(IllegalArgumentException.class, () -> new Limits(null, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Limits(PathMtu.MTU_256, -1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new Limits(PathMtu.MTU_256, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Limits(PathMtu.MTU_256, 1, 1, 0));
    }

    // ---------------------------------------------------------------- a whole bring-up

    @Test
    void rcBringUpWithMasksTakenFromTheAttributes() throws Exception {
        AddressVector av = AddressVector.of(InetAddress.getByName("192.168.1.7"));
        QpAttributes[] steps = {
            new QpAttributes().state(QpState.INIT).pkeyIndex(0).port(1)
                    .accessFlags(AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ),
            new QpAttributes().state(QpState.RTR).av(av).pathMtu(PathMtu.MTU_1024).destQpn(0x11)
                    .rqPsn(0x123).maxDestRdAtomic(1).minRnrTimer(12),
            new QpAttributes().state(QpState.RTS).timeout(14).retryCnt(7).rnrRetry(7).sqPsn(0x456).maxRdAtomic(1),
            new QpAttributes().state(QpState.SQD).enSqdAsyncNotify(true),
            new QpAttributes().state(QpState.RTS).curState(QpState.SQD),
            new QpAttributes().state(QpState.ERR),
            new QpAttributes().state(QpState.RESET),
        };
        QpState current = QpState.RESET;
        for (QpAttributes step : steps) {
            QpTransitions.validate(QpType.RC, current, step, step.mask(), QpTransitions.Limits.RXE);
            current = QpTransitions.target(current, step, step.mask());
        }
        assertEquals(QpState.RESET, current);
    }
}
