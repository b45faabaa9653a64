package io.rnic.core.memory;

import java.nio.ByteBuffer;

/**
 * A region allocated without memory for fast registration (the kernel's
 * {@code ib_alloc_mr(IB_MR_TYPE_MEM_REG)}): it holds a region index and, while registered, the
 * {@link MemoryRegion} a REG_MR work request made of the memory mapped into it; LOCAL_INV or a
 * peer's SEND with Invalidate frees it again (FREE), ready for the next REG_MR with a new key
 * byte. The mapping ({@code ib_map_mr_sg}) is set by the application before it posts the REG_MR.
 */
public final class FastRegion {
    private final ProtectionDomain pd;
    private final int index;
    private final int maxLength;
    private volatile int key;
    /** The registration in force, or {@code null} while FREE. */
    private volatile MemoryRegion current;
    private ByteBuffer buffer;
    private int offset;
    private int length;

    FastRegion(ProtectionDomain pd, int index, int maxLength, int key) {
        this.pd = pd;
        this.index = index;
        this.maxLength = maxLength;
        this.key = key;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    int index() {
        return index;
    }

    /** The largest length a registration may have. */
    public int maxLength() {
        return maxLength;
    }

    /** The current key (the last registration's, or the allocation's). */
    public int key() {
        return key;
    }

    /** The registration in force, or {@code null} while FREE. */
    public MemoryRegion current() {
        return current;
    }

    /**
     * Sets the memory the next REG_MR registers: {@code buffer[offset, offset + length)}.
     *
     * @throws IllegalArgumentException if the range is outside the buffer or longer than
     *     {@link #maxLength}
     */
    public synchronized void map(ByteBuffer buffer, int offset, int length) {
        if (buffer == null || offset < 0 || length <= 0 || offset > buffer.capacity() - length) {
            throw new IllegalArgumentException("a mapping needs a buffer and a range inside it");
        }
        if (length > maxLength) {
            throw new IllegalArgumentException("mapping of " + length + " bytes exceeds the region's max length "
                    + maxLength);
        }
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
    }

    synchronized ByteBuffer buffer() {
        return buffer;
    }

    synchronized int offset() {
        return offset;
    }

    synchronized int length() {
        return length;
    }

    void registered(MemoryRegion mr) {
        current = mr;
        key = mr.lkey();
    }

    void freed() {
        current = null;
    }
}
