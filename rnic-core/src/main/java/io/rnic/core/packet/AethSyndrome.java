package io.rnic.core.packet;

/**
 * Encoding and decoding of the AETH syndrome byte (reference §3): bits 6..5 give the type (ACK,
 * RNR NAK, reserved, NAK), bits 4..0 the credit code, RNR timer or NAK code.
 */
public final class AethSyndrome {
    public static final int TYPE_ACK = 0;
    public static final int TYPE_RNR_NAK = 1;
    public static final int TYPE_RESERVED = 2;
    public static final int TYPE_NAK = 3;

    /** Credit code meaning "no credit information" (rxe sends it in every ACK). */
    public static final int CREDITS_INVALID = 0x1F;

    public static final int NAK_PSN_SEQUENCE_ERROR = 0;
    public static final int NAK_INVALID_REQUEST = 1;
    public static final int NAK_REMOTE_ACCESS_ERROR = 2;
    public static final int NAK_REMOTE_OPERATIONAL_ERROR = 3;
    public static final int NAK_INVALID_RD_REQUEST = 4;

    /** Credits per 5-bit code (§3.1); index 0x1F is "invalid" and has no count. */
    private static final int[] CREDITS = {
        0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
        256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
    };

    /** RNR NAK delays in microseconds per 5-bit timer code (§3.2); code 0 is the longest. */
    private static final int[] RNR_DELAY_MICROS = {
        655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
        2560, 3840, 5120, 7680, 10_240, 15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880,
        163_840, 245_760, 327_680, 491_520,
    };

    private static final String[] NAK_NAMES = {
        "PSN_SEQUENCE_ERROR", "INVALID_REQUEST", "REMOTE_ACCESS_ERROR",
        "REMOTE_OPERATIONAL_ERROR", "INVALID_RD_REQUEST",
    };

    private AethSyndrome() {
    }

    /** The type field, bits 6..5. */
    public static int type(int syndrome) {
        return (syndrome >>> 5) & 0x3;
    }

    /** The value field, bits 4..0. */
    public static int value(int syndrome) {
        return syndrome & 0x1F;
    }

    public static int ack(int creditCode) {
        return creditCode & 0x1F;
    }

    public static int rnrNak(int timerCode) {
        return (TYPE_RNR_NAK << 5) | (timerCode & 0x1F);
    }

    public static int nak(int nakCode) {
        return (TYPE_NAK << 5) | (nakCode & 0x1F);
    }

    /** The number of credits a code stands for, or -1 for the "invalid" code 0x1F. */
    public static int creditsOf(int creditCode) {
        int c = creditCode & 0x1F;
        return c == CREDITS_INVALID ? -1 : CREDITS[c];
    }

    /** The largest credit code whose count does not exceed {@code freeReceiveWqes}. */
    public static int creditCodeFor(int freeReceiveWqes) {
        if (freeReceiveWqes <= 0) {
            return 0;
        }
        int code = 0;
        while (code + 1 < CREDITS.length && CREDITS[code + 1] <= freeReceiveWqes) {
            code++;
        }
        return code;
    }

    /** The RNR delay of a timer code in microseconds (§3.2). */
    public static int rnrDelayMicros(int timerCode) {
        return RNR_DELAY_MICROS[timerCode & 0x1F];
    }

    /** Reference name of a NAK code, or {@code RESERVED_n} for codes 5–31. */
    public static String nakName(int nakCode) {
        int c = nakCode & 0x1F;
        return c < NAK_NAMES.length ? NAK_NAMES[c] : "RESERVED_" + c;
    }

    /**
     * Human-readable form of a syndrome, for example {@code ACK credits=invalid},
     * {@code RNR_NAK timer=12(0.64ms)} or {@code NAK REMOTE_ACCESS_ERROR}.
     */
    public static String describe(int syndrome) {
        int v = value(syndrome);
        switch (type(syndrome)) {
            case TYPE_ACK:
                return v == CREDITS_INVALID ? "ACK credits=invalid" : "ACK credits=" + CREDITS[v];
            case TYPE_RNR_NAK:
                int us = RNR_DELAY_MICROS[v];
                return "RNR_NAK timer=" + v + "(" + (us / 1000) + "." + String.format("%02d", (us % 1000) / 10) + "ms)";
            case TYPE_NAK:
                return "NAK " + nakName(v);
            default:
                return String.format("RESERVED syndrome=0x%02x", syndrome);
        }
    }
}
