package io.rnic.transport.fabric;

/**
 * A FIFO of packets with their sizes and a running byte count: one egress priority queue of a
 * switch port. A ring that doubles when full, so once it has reached a run's deepest queue it
 * allocates nothing more; a polled slot is cleared so the queue keeps no packet alive.
 *
 * @param <T> the packet carrier
 */
final class PacketQueue<T> {
    private Object[] items;
    private int[] sizes;
    private int head;
    private int count;
    private long bytes;

    /** An empty queue with room for {@code initialCapacity} packets (rounded up to a power of two). */
    PacketQueue(int initialCapacity) {
        if (initialCapacity < 1 || initialCapacity > 1 << 30) {
            throw new IllegalArgumentException("initial capacity " + initialCapacity + " must be 1..2^30");
        }
        int c = Integer.highestOneBit(initialCapacity);
        if (c < initialCapacity) {
            c <<= 1;
        }
        items = new Object[c];
        sizes = new int[c];
    }

    /** An empty queue with room for 16 packets. */
    PacketQueue() {
        this(16);
    }

    /** Appends {@code packet} of {@code size} bytes. */
    void offer(T packet, int size) {
        if (packet == null) {
            throw new NullPointerException("packet");
        }
        if (size < 0) {
            throw new IllegalArgumentException("packet size " + size + " B is negative");
        }
        if (count == items.length) {
            grow();
        }
        int slot = (head + count) & (items.length - 1);
        items[slot] = packet;
        sizes[slot] = size;
        count++;
        bytes += size;
    }

    private void grow() {
        int n = items.length;
        if (n == 1 << 30) {
            throw new IllegalStateException("a packet queue of 2^30 packets is full");
        }
        Object[] ni = new Object[n * 2];
        int[] ns = new int[n * 2];
        for (int k = 0; k < count; k++) {
            int from = (head + k) & (n - 1);
            ni[k] = items[from];
            ns[k] = sizes[from];
        }
        items = ni;
        sizes = ns;
        head = 0;
    }

    /** The head packet, or null if empty. */
    @SuppressWarnings("unchecked")
    T peek() {
        return count == 0 ? null : (T) items[head];
    }

    /** The head packet's size, or -1 if empty. */
    int peekSize() {
        return count == 0 ? -1 : sizes[head];
    }

    /** Removes and returns the head packet, or null if empty. */
    @SuppressWarnings("unchecked")
    T poll() {
        if (count == 0) {
            return null;
        }
        T p = (T) items[head];
        items[head] = null;
        bytes -= sizes[head];
        head = (head + 1) & (items.length - 1);
        count--;
        return p;
    }

    /** Packets queued. */
    int size() {
        return count;
    }

    /** Bytes queued. */
    long bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return count == 0;
    }

    /** Slots the ring has now (it doubles when full). */
    int capacity() {
        return items.length;
    }
}
