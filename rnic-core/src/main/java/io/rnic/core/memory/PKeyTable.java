package io.rnic.core.memory;

import java.util.Arrays;

/**
 * The P_Key table of one port (reference §8.4): 16-bit partition keys, addressed by a QP's
 * {@code pkey_index}. Bit 15 is the membership bit (1 = full, 0 = limited), bits 14..0 the
 * partition. rxe has a single entry, {@link #DEFAULT_PKEY}, which is the default here. Immutable.
 */
public final class PKeyTable {
    /** The default partition key, full member of the default partition. */
    public static final int DEFAULT_PKEY = 0xFFFF;

    private static final int FULL_MEMBER = 0x8000;
    private static final int PARTITION_MASK = 0x7FFF;

    private final int[] pkeys;

    /** A table with the single entry {@link #DEFAULT_PKEY}. */
    public PKeyTable() {
        this(DEFAULT_PKEY);
    }

    /**
     * A table with the given entries, index 0 first.
     *
     * @throws IllegalArgumentException if there is no entry or an entry is not a 16-bit value
     */
    public PKeyTable(int... pkeys) {
        if (pkeys == null || pkeys.length == 0) {
            throw new IllegalArgumentException("P_Key table needs at least one entry");
        }
        for (int i = 0; i < pkeys.length; i++) {
            if ((pkeys[i] & ~0xFFFF) != 0) {
                throw new IllegalArgumentException("P_Key table entry " + i + " (0x" + Integer.toHexString(pkeys[i])
                        + ") is not a 16-bit value");
            }
        }
        this.pkeys = pkeys.clone();
    }

    /** The number of entries; valid {@code pkey_index} values are {@code 0 .. size() - 1}. */
    public int size() {
        return pkeys.length;
    }

    /**
     * The P_Key at {@code index}.
     *
     * @throws IllegalArgumentException if {@code index} is not in {@code 0 .. size() - 1}
     */
    public int get(int index) {
        if (index < 0 || index >= pkeys.length) {
            throw new IllegalArgumentException("pkey_index " + index + " is outside the P_Key table (size "
                    + pkeys.length + ")");
        }
        return pkeys[index];
    }

    /**
     * rxe's {@code pkey_match}: true if both keys name the same partition (low 15 bits equal and
     * non-zero) and at least one of them is a full member (bit 15 set). Two limited members
     * cannot talk to each other.
     */
    public static boolean matches(int a, int b) {
        int partition = a & PARTITION_MASK;
        return partition != 0
                && partition == (b & PARTITION_MASK)
                && ((a | b) & FULL_MEMBER) != 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("P_Key table [");
        for (int i = 0; i < pkeys.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(String.format("0x%04x", pkeys[i]));
        }
        return sb.append(']').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PKeyTable && Arrays.equals(pkeys, ((PKeyTable) o).pkeys);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(pkeys);
    }
}
