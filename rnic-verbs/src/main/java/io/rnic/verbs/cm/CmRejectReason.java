package io.rnic.verbs.cm;

/**
 * The reasons a REJ gives (IBA Vol. 1 table 112; Linux's {@code enum ib_cm_rej_reason}), by name,
 * for messages: a REJECTED event's {@link CmEvent#status()} is one of these codes.
 */
public final class CmRejectReason {
    private static final String[] NAMES = new String[34];

    static {
        NAMES[1] = "no QP available";
        NAMES[2] = "no EEC available";
        NAMES[3] = "no resources available";
        NAMES[4] = "timeout";
        NAMES[5] = "unsupported request";
        NAMES[6] = "invalid communication ID";
        NAMES[7] = "invalid communication instance";
        NAMES[8] = "invalid service ID";
        NAMES[9] = "invalid transport type";
        NAMES[10] = "stale connection";
        NAMES[11] = "RDC does not exist";
        NAMES[12] = "primary remote port GID rejected";
        NAMES[13] = "primary remote port LID rejected";
        NAMES[14] = "invalid primary SL";
        NAMES[15] = "invalid primary traffic class";
        NAMES[16] = "invalid primary hop limit";
        NAMES[17] = "invalid primary packet rate";
        NAMES[18] = "alternate remote port GID rejected";
        NAMES[19] = "alternate remote port LID rejected";
        NAMES[20] = "invalid alternate SL";
        NAMES[21] = "invalid alternate traffic class";
        NAMES[22] = "invalid alternate hop limit";
        NAMES[23] = "invalid alternate packet rate";
        NAMES[24] = "port and CM redirection";
        NAMES[25] = "port redirection not supported";
        NAMES[26] = "invalid path MTU";
        NAMES[27] = "insufficient responder resources";
        NAMES[28] = "consumer reject";
        NAMES[29] = "RNR retry count reject";
        NAMES[30] = "duplicate local communication ID";
        NAMES[31] = "unsupported class version";
        NAMES[32] = "invalid primary flow label";
        NAMES[33] = "invalid alternate flow label";
    }

    private CmRejectReason() {
    }

    /**
     * The name of REJ reason {@code code}, such as "invalid service ID" for 8.
     *
     * @param code a REJ reason
     * @return its name, or "reason N" for a code the table does not define
     */
    public static String name(int code) {
        return code > 0 && code < NAMES.length && NAMES[code] != null ? NAMES[code] : "reason " + code;
    }
}
