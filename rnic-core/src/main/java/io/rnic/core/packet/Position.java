package io.rnic.core.packet;

/** Where a packet sits in its message (rxe's START/MIDDLE/END flags). */
public enum Position {
    FIRST(true, false),
    MIDDLE(false, false),
    LAST(false, true),
    ONLY(true, true);

    private final boolean first;
    private final boolean last;

    Position(boolean first, boolean last) {
        this.first = first;
        this.last = last;
    }

    /** True for FIRST and ONLY: the packet starts a message. */
    public boolean startsMessage() {
        return first;
    }

    /** True for LAST and ONLY: the packet ends a message. */
    public boolean endsMessage() {
        return last;
    }

    /** The place of packet {@code index} (from 0) of a message of {@code count} packets. */
    public static Position of(int index, int count) {
        if (count == 1) {
            return ONLY;
        }
        if (index == 0) {
            return FIRST;
        }
        return index == count - 1 ? LAST : MIDDLE;
    }
}
