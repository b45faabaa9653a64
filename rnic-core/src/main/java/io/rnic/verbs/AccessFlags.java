package io.rnic.verbs;

/**
 * Memory access flags with the values of libibverbs {@code enum ibv_access_flags} (reference
 * §8.2). The same bits serve as MR access rights and as QP access flags ({@code qp_access_flags}),
 * which gate the remote operations a QP accepts independently of the MR rights.
 *
 * <p>Only the flags below are supported; ON_DEMAND, HUGETLB and RELAXED_ORDERING are treated as
 * unknown bits.
 */
public final class AccessFlags {
    /** The local side may write (receive buffers, READ and atomic result buffers). */
    public static final int LOCAL_WRITE = 0x1;
    /** Remote peers may RDMA WRITE into the region. */
    public static final int REMOTE_WRITE = 0x2;
    /** Remote peers may RDMA READ from the region. */
    public static final int REMOTE_READ = 0x4;
    /** Remote peers may perform atomic operations on the region. */
    public static final int REMOTE_ATOMIC = 0x8;
    /** Memory windows may be bound to the region. */
    public static final int MW_BIND = 0x10;
    /** Remote addresses are offsets from the start of the region. */
    public static final int ZERO_BASED = 0x20;
    /**
     * Remote peers may FLUSH the region for global visibility (IBTA 1.5); as a QP access flag,
     * the QP accepts such FLUSHes.
     */
    public static final int FLUSH_GLOBAL = 0x100;
    /**
     * Remote peers may FLUSH the region to persistence (IBTA 1.5). Only memory that can persist
     * may be registered with it: a file mapped by {@link ProtectionDomain#registerPersistentMemory}
     * (rxe: pmem only); as a QP access flag, the QP accepts such FLUSHes.
     */
    public static final int FLUSH_PERSISTENT = 0x200;
    /** Every supported flag. */
    public static final int ALL = LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ | REMOTE_ATOMIC | MW_BIND | ZERO_BASED
            | FLUSH_GLOBAL | FLUSH_PERSISTENT;

    /** Names by bit position; bits 6 and 7 (ON_DEMAND, HUGETLB) are not supported. */
    private static final String[] NAMES = {
        "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND", "ZERO_BASED", null, null,
        "FLUSH_GLOBAL", "FLUSH_PERSISTENT",
    };

    private AccessFlags() {
    }

    /**
     * Checks MR access flags as {@code ibv_reg_mr} does.
     *
     * @param flags the access flags to check
     * @return {@code flags}
     * @throws IllegalArgumentException if {@code flags} has bits outside {@link #ALL}, or grants
     *     REMOTE_WRITE or REMOTE_ATOMIC without LOCAL_WRITE (ibv_reg_mr fails with EINVAL)
     */
    public static int validate(int flags) {
        int unknown = flags & ~ALL;
        if (unknown != 0) {
            throw new IllegalArgumentException("access flags " + describe(flags) + " contain unknown bits 0x"
                    + Integer.toHexString(unknown));
        }
        // A remote writer could otherwise modify memory its owner declared not locally writable.
        int needLocal = flags & (REMOTE_WRITE | REMOTE_ATOMIC);
        if (needLocal != 0 && (flags & LOCAL_WRITE) == 0) {
            throw new IllegalArgumentException("access flags " + describe(flags) + ": " + describe(needLocal)
                    + " requires LOCAL_WRITE");
        }
        return flags;
    }

    /**
     * Tells whether {@code flags} grant everything {@code required} asks for.
     *
     * @param flags the granted access flags
     * @param required the access flags an operation needs
     * @return true if every bit of {@code required} is set in {@code flags}
     */
    public static boolean allows(int flags, int required) {
        return (flags & required) == required;
    }

    /**
     * Names the bits of {@code flags}, e.g. {@code "LOCAL_WRITE|REMOTE_READ"}; unknown bits appear
     * as one hex number, no bits as {@code "NONE"}.
     *
     * @param flags access flags, known or not
     * @return the flags' names joined by {@code '|'}
     */
    public static String describe(int flags) {
        if (flags == 0) {
            return "NONE";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i] != null && (flags & (1 << i)) != 0) {
                if (sb.length() > 0) {
                    sb.append('|');
                }
                sb.append(NAMES[i]);
            }
        }
        int unknown = flags & ~ALL;
        if (unknown != 0) {
            if (sb.length() > 0) {
                sb.append('|');
            }
            sb.append("0x").append(Integer.toHexString(unknown));
        }
        return sb.toString();
    }
}
