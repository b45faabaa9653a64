package io.rnic.transport;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import io.netty.buffer.UnpooledUnsafeDirectByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * The allocator of outgoing packets: a free list of direct buffers of one size (a packet of the
 * largest MTU with every header), each returned to the list when its last reference is released.
 * Netty's pooled allocator pays for its generality on every packet (a new wrapper object unless
 * the thread is one of Netty's own, an arena lookup, a cache entry), and a new buffer object per
 * packet costs the protocol core G1's write barrier on every store of it into the long-lived
 * packet view; a packet here costs no locked instruction on the list's owner thread (below) and
 * allocates nothing once the list holds the deepest burst. Larger requests (a GSO train) go to
 * Netty's pooled allocator.
 *
 * <p>Without {@code sun.misc.Unsafe} (Netty turns it off by default from Java 24 on, unless the JVM
 * runs with {@code --sun-misc-unsafe-memory-access=allow}) the list holds buffers that reach their
 * memory through a {@link java.nio.ByteBuffer} instead: slower to read and write, but still no
 * allocation per packet, and no buffer taken from Netty's pooled allocator for every socket read.
 *
 * <p>Thread-safe: packets are usually taken and given back on a wire's protocol thread, but a
 * packet a tap retained may be released anywhere. So the list is two: the owner's, used without a
 * lock by the first thread that takes a buffer (the protocol thread, in every threading mode and
 * on the simulated network), and a shared one under a monitor for every other thread, from
 * which the owner also takes when its own runs dry. Each holds at most {@code maxFree} buffers.
 * Should the owner thread end, the buffers it gave back stay on its list, unused, as long as the
 * list lives: at most what it released while it ran.
 */
public final class PacketBuffers extends AbstractByteBufAllocator {
    /** Room for a 4096-byte payload with every RoCEv2 header a packet can carry, and the ICRC. */
    public static final int PACKET_CAPACITY = 4224;
    /** Buffers kept on the free list at most by default; more are freed when released. */
    static final int MAX_FREE = 4096;

    private final int capacity;
    private final boolean unsafe;
    private final ByteBuf[] free;
    private int freeCount;
    private final ByteBuf[] ownerFree;
    private int ownerFreeCount;
    /** The thread that uses {@link #ownerFree} without a lock: the first to take a buffer. */
    private volatile Thread owner;

    /** Outgoing packets: buffers of {@link #PACKET_CAPACITY} bytes, up to 4096 kept free. */
    public PacketBuffers() {
        this(PACKET_CAPACITY, MAX_FREE);
    }

    /**
     * Buffers of {@code capacity} bytes, up to {@code maxFree} kept free (a UDP wire's socket
     * reads use one of these with the size of one read).
     */
    public PacketBuffers(int capacity, int maxFree) {
        this(capacity, maxFree, PlatformDependent.hasUnsafe());
    }

    /** As {@link #PacketBuffers(int, int)}; {@code unsafe} false takes the buffers that work without Unsafe. */
    PacketBuffers(int capacity, int maxFree, boolean unsafe) {
        super(true);
        if (capacity < 1 || maxFree < 1) {
            throw new IllegalArgumentException("capacity " + capacity + " and maxFree " + maxFree + " must be positive");
        }
        if (unsafe && !PlatformDependent.hasUnsafe()) {
            throw new IllegalStateException("Unsafe buffers asked for where Netty has no Unsafe");
        }
        this.capacity = capacity;
        this.unsafe = unsafe;
        this.free = new ByteBuf[maxFree];
        this.ownerFree = new ByteBuf[maxFree];
    }

    /** The size of the buffers on the list. */
    public int bufferCapacity() {
        return capacity;
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        if (initialCapacity > capacity || maxCapacity < capacity) {
            return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
        }
        ByteBuf b = null;
        Thread t = Thread.currentThread();
        if (isOwner(t) || owner == null && claimOwner(t)) {
            int n = ownerFreeCount;
            if (n > 0) {
                b = ownerFree[--n];
                ownerFree[n] = null;
                ownerFreeCount = n;
            }
        }
        if (b == null) {
            synchronized (free) {
                b = freeCount == 0 ? null : free[--freeCount];
                if (b != null) {
                    free[freeCount] = null;
                }
            }
        }
        if (b != null) {
            ((Recycled) b).reuse(); // by the taker: a buffer on the list stays released, so a second release fails
            return b;
        }
        return unsafe ? new PacketBuf(this, maxCapacity) : new ByteBufferPacketBuf(this, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }

    private boolean isOwner(Thread t) {
        return owner == t;
    }

    private synchronized boolean claimOwner(Thread t) {
        if (owner == null) {
            owner = t;
        }
        return owner == t;
    }

    /** Buffers on the free lists now (exact on the owner thread, or when no other thread uses the lists). */
    public int freeBuffers() {
        synchronized (free) {
            return freeCount + ownerFreeCount;
        }
    }

    /** Takes back a buffer whose last reference was released; false if its list is full. */
    private boolean giveBack(ByteBuf b) {
        if (isOwner(Thread.currentThread())) {
            int n = ownerFreeCount;
            if (n == ownerFree.length) {
                return false;
            }
            ownerFree[n] = b;
            ownerFreeCount = n + 1;
            return true;
        }
        synchronized (free) {
            if (freeCount == free.length) {
                return false;
            }
            free[freeCount++] = b;
            return true;
        }
    }

    /**
     * Called by a buffer whose last reference was released: true if the list took it back, as it
     * is (released, until {@link #newDirectBuffer} hands it out again); false if it must free its
     * memory (not the list's size, or the list full).
     */
    private boolean takeBack(ByteBuf b) {
        return b.capacity() == capacity && giveBack(b);
    }

    /** What a buffer of the list does when taken again: Netty keeps the reference count's setters protected. */
    private interface Recycled {
        /** One reference again, indices cleared. */
        void reuse();
    }

    /** A packet buffer, reached through Unsafe, that goes back to its list instead of freeing its memory. */
    private static final class PacketBuf extends UnpooledUnsafeDirectByteBuf implements Recycled {
        private final PacketBuffers owner;

        PacketBuf(PacketBuffers owner, int maxCapacity) {
            super(owner, owner.capacity, maxCapacity);
            this.owner = owner;
        }

        @Override
        public boolean release() {
            if (refCnt() != 1) {
                return super.release();
            }
            // The last reference is the caller's: no other holder may retain or release it
            // now, so no compare-and-set (a locked instruction per packet) is needed to end it.
            setRefCnt(0);
            deallocate();
            return true;
        }

        @Override
        protected void deallocate() {
            if (!owner.takeBack(this)) {
                super.deallocate();
            }
        }

        @Override
        public void reuse() {
            resetRefCnt();
            clear();
        }
    }

    /** As {@link PacketBuf}, for a JVM where Netty has no Unsafe: its memory is reached through a ByteBuffer. */
    private static final class ByteBufferPacketBuf extends UnpooledDirectByteBuf implements Recycled {
        private final PacketBuffers owner;

        /** The memory's native address once asked for, 0 before. */
        private long address;

        ByteBufferPacketBuf(PacketBuffers owner, int maxCapacity) {
            super(owner, owner.capacity, maxCapacity);
            this.owner = owner;
        }

        /**
         * Without Unsafe, Netty finds a ByteBuffer's address through a new MemorySegment on every
         * call, and the native transport asks on every socket read: once per buffer memory instead.
         */
        @Override
        public long memoryAddress() {
            ensureAccessible(); // as Netty's own: a released buffer has no address to give
            long a = address;
            if (a == 0) {
                a = super.memoryAddress();
                address = a;
            }
            return a;
        }

        @Override
        public ByteBuf capacity(int newCapacity) {
            address = 0; // a new capacity may mean new memory
            return super.capacity(newCapacity);
        }

        @Override
        public boolean release() {
            if (refCnt() != 1) {
                return super.release();
            }
            setRefCnt(0); // as PacketBuf's
            deallocate();
            return true;
        }

        @Override
        protected void deallocate() {
            if (!owner.takeBack(this)) {
                super.deallocate();
            }
        }

        @Override
        public void reuse() {
            resetRefCnt();
            clear();
        }
    }
}
