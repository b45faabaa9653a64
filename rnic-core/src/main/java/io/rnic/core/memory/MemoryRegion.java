package io.rnic.core.memory;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import io.rnic.verbs.AccessFlags;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A registered memory region: a window of an application {@link ByteBuffer} that local work
 * requests reach through the lkey and remote peers through the rkey (equal for MRs, reference
 * §8.1), at virtual addresses {@code [va, va + length)}. Created by {@link KeyTable#register}.
 *
 * <p>The region keeps its own view of the buffer, so the caller's position, limit and byte order
 * are never touched. All data methods use absolute buffer operations and allocate nothing; they
 * check that the addressed range lies inside the region and throw
 * {@link IndexOutOfBoundsException} otherwise. They do not check keys, PDs or access rights: the
 * transport engine does that first with {@link MemoryAccess#check}.
 *
 * <p><b>Atomics.</b> The 8 bytes at an atomic target are a host-order <em>little-endian</em>
 * 64-bit integer, as on x86 and in rxe, so that a buffer shared with native code or compared
 * against an x86 peer holds the same bytes. Operands and results are plain Java longs; the wire
 * encoding (big-endian) is the packet layer's business. The atomic methods are synchronized on
 * the region, which serialises them against each other; plain {@link #read}/{@link #write} are not
 * atomic with respect to them (as with real RDMA, mixing the two on the same bytes is a race).
 *
 * <p><b>Lifetime.</b> Deregistration and invalidation run on the protocol thread of the region's
 * HCA (or when none runs), between two packets, so a copy there only checks {@link #isValid()}
 * first. A copy on any other thread (an inline post's) {@link #pin()}s the region and
 * {@link #unpin()}s it when done, and invalidation waits for such pins. After deregistration
 * {@link #isValid()} is false and {@link #pin()} fails.
 */
public final class MemoryRegion {
    /** Pin state meaning "deregistered"; any value {@code >= 0} is the number of pins. */
    private static final int DEREGISTERED = -1;

    private final ProtectionDomain pd;
    private final ByteBuffer data;
    /** The native address of a direct {@link #data} (index 0), or 0: packets copy to and from it directly. */
    private final long dataAddress;
    private final long va;
    private final int length;
    private final int key;
    private final int access;
    /** True for memory that can persist (a file mapping), which FLUSH_PERSISTENT forces to storage. */
    private final boolean persistent;
    /** True for a fast registration (REG_MR), which LOCAL_INV and a peer's SEND with Invalidate revoke. */
    private final boolean fastRegistered;
    /**
     * Pins, or {@link #DEREGISTERED}: a field of the region, not an {@code AtomicInteger}, so
     * that every packet's check of it reads the region's own cache line, not one more object's.
     */
    private volatile int pins;
    /** Memory windows bound to the region: deregistration is refused while any is (rxe, EINVAL). */
    private volatile int windows;

    private static final VarHandle PINS;
    private static final VarHandle WINDOWS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PINS = l.findVarHandle(MemoryRegion.class, "pins", int.class);
            WINDOWS = l.findVarHandle(MemoryRegion.class, "windows", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Builds a region over {@code buffer[offset, offset + length)}; {@code offset} is an absolute
     * index, independent of the buffer's position.
     */
    MemoryRegion(ProtectionDomain pd, ByteBuffer buffer, int offset, int length, long va, int access, int key) {
        this(pd, buffer, offset, length, va, access, key, false);
    }

    /**
     * As above; {@code persistent} says the buffer maps a file, so that FLUSH to persistence means
     * forcing it to storage. Only such a region may have {@link AccessFlags#FLUSH_PERSISTENT}.
     */
    MemoryRegion(ProtectionDomain pd, ByteBuffer buffer, int offset, int length, long va, int access, int key,
                 boolean persistent) {
        this(pd, buffer, offset, length, va, access, key, persistent, false);
    }

    MemoryRegion(ProtectionDomain pd, ByteBuffer buffer, int offset, int length, long va, int access, int key,
                 boolean persistent, boolean fastRegistered) {
        if (pd == null) {
            throw new IllegalArgumentException("memory region needs a protection domain, got null");
        }
        if (buffer == null) {
            throw new IllegalArgumentException("memory region needs a buffer, got null");
        }
        AccessFlags.validate(access);
        if (length <= 0) {
            throw new IllegalArgumentException("memory region length " + length + " must be positive");
        }
        if (offset < 0 || offset > buffer.capacity() - length) {
            throw new IllegalArgumentException("memory region [" + offset + ", " + ((long) offset + length)
                    + ") lies outside the buffer (capacity " + buffer.capacity() + ")");
        }
        // Unsigned: the region must not wrap past 2^64 - 1, or bounds checks would be ambiguous.
        if (Long.compareUnsigned(va + length - 1, va) < 0) {
            throw new IllegalArgumentException("memory region va 0x" + Long.toHexString(va) + " length " + length
                    + " wraps past the end of the 64-bit address space");
        }
        if ((access & AccessFlags.ZERO_BASED) != 0 && va != 0) {
            throw new IllegalArgumentException("memory region with ZERO_BASED access must have va 0, got 0x"
                    + Long.toHexString(va));
        }
        if ((access & AccessFlags.FLUSH_PERSISTENT) != 0 && !(persistent && buffer instanceof java.nio.MappedByteBuffer)) {
            // rxe refuses FLUSH_PERSISTENT on anything but pmem; a heap or direct buffer cannot persist.
            throw new IllegalArgumentException("FLUSH_PERSISTENT needs memory that can persist: register a mapped file "
                    + "(registerPersistentMemory), not an ordinary buffer");
        }
        int writeRights = access & (AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_ATOMIC);
        if (buffer.isReadOnly() && writeRights != 0) {
            throw new IllegalArgumentException("memory region access " + AccessFlags.describe(writeRights)
                    + " needs a writable buffer, got a read-only one");
        }
        this.pd = pd;
        // clear() on our duplicate only: slice(index, length) is bounded by the limit, and the
        // region is defined against the capacity.
        this.data = buffer.duplicate().clear().slice(offset, length).order(ByteOrder.LITTLE_ENDIAN);
        // A read-only buffer keeps the checked path, which refuses writes.
        this.dataAddress = data.isDirect() && !data.isReadOnly() && PlatformDependent.hasUnsafe()
                ? PlatformDependent.directBufferAddress(data) : 0;
        this.va = va;
        this.length = length;
        this.access = access;
        this.key = key;
        this.persistent = persistent;
        this.fastRegistered = fastRegistered;
    }

    /**
     * The region's bytes, as a view of its own (index 0 is the first byte): what a
     * re-registration that keeps the translation registers again.
     */
    ByteBuffer data() {
        return data;
    }

    /** True if the region maps a file that FLUSH to persistence forces to storage. */
    public boolean persistent() {
        return persistent;
    }

    /**
     * FLUSH to persistence of {@code [va, va + len)} (the whole region if {@code len < 0}): forces
     * the mapped file's pages to storage, as {@code MappedByteBuffer.force} does. A region that
     * does not map a file has nothing to force.
     */
    public void persist(long va, long len) {
        if (!persistent) {
            return;
        }
        int at = len < 0 ? 0 : offsetOf(va, (int) len);
        int n = len < 0 ? length : (int) len;
        if (n > 0) {
            ((java.nio.MappedByteBuffer) data).force(at, n);
        }
    }

    void windowBound() {
        WINDOWS.getAndAdd(this, 1);
    }

    void windowUnbound() {
        WINDOWS.getAndAdd(this, -1);
    }

    /** Memory windows bound to the region now. */
    public int boundWindows() {
        return windows;
    }

    /** The protection domain the region belongs to. */
    public ProtectionDomain pd() {
        return pd;
    }

    /** The virtual address of the first byte, as local SGEs and remote peers address it. */
    public long va() {
        return va;
    }

    /** The length in bytes. */
    public int length() {
        return length;
    }

    /** The local key. */
    public int lkey() {
        return key;
    }

    /**
     * Whether LOCAL_INV or a peer's SEND with Invalidate may revoke this region's key: only a
     * fast registration (REG_MR) may be (and memory windows); a region registered with
     * {@code reg_mr} may not (rxe refuses any region not of type {@code IB_MR_TYPE_MEM_REG}).
     */
    public boolean remotelyInvalidatable() {
        return fastRegistered;
    }

    /** The remote key; equal to the local key for MRs. */
    public int rkey() {
        return key;
    }

    /** The key table index the key was built from ({@code key >>> 8}). */
    public int index() {
        return key >>> 8;
    }

    /** The access flags given at registration ({@link AccessFlags}). */
    public int access() {
        return access;
    }

    /**
     * True if {@code [va, va + len)} lies inside the region; lengths are unsigned, and a zero
     * length is always inside.
     */
    public boolean contains(long va, long len) {
        if (len == 0) {
            return true;
        }
        long off = va - this.va;
        // Unsigned compares make va below the base (negative offset) and huge lengths fail.
        return Long.compareUnsigned(va, this.va) >= 0
                && Long.compareUnsigned(off, length) < 0
                && Long.compareUnsigned(len, length - off) <= 0;
    }

    /**
     * Copies {@code len} bytes at virtual address {@code va} into {@code dst} at absolute index
     * {@code dstIndex}; the indices of {@code dst} are not changed.
     *
     * @throws IndexOutOfBoundsException if the range is outside the region or outside {@code dst}
     */
    public void read(long va, ByteBuf dst, int dstIndex, int len) {
        int at = offsetOf(va, len);
        checkBuf(dst, dstIndex, len, "destination");
        if (len == 0) {
            return;
        }
        if (dataAddress != 0 && dst.hasMemoryAddress()) {
            // Direct memory to direct memory: one copy, no view objects, no per-call buffer checks.
            PlatformDependent.copyMemory(dataAddress + at, dst.memoryAddress() + dstIndex, len);
        } else if (dst.hasArray()) {
            data.get(at, dst.array(), dst.arrayOffset() + dstIndex, len);
        } else if (data.hasArray() && !data.isReadOnly() && dst.hasMemoryAddress() && PlatformDependent.hasUnsafe()) {
            PlatformDependent.copyMemory(data.array(), data.arrayOffset() + at, dst.memoryAddress() + dstIndex, len);
        } else if (dst.nioBufferCount() == 1) {
            // Netty's cached view of its memory: no allocation, unlike nioBuffer(index, len).
            ByteBuffer to = dst.internalNioBuffer(dstIndex, len);
            to.put(to.position(), data, at, len);
        } else {
            int i = 0;
            for (; len - i >= Long.BYTES; i += Long.BYTES) {
                dst.setLongLE(dstIndex + i, data.getLong(at + i));
            }
            for (; i < len; i++) {
                dst.setByte(dstIndex + i, data.get(at + i));
            }
        }
    }

    /**
     * Copies {@code len} bytes of {@code src} at absolute index {@code srcIndex} into the region
     * at virtual address {@code va}; the indices of {@code src} are not changed.
     *
     * @throws IndexOutOfBoundsException if the range is outside the region or outside {@code src}
     */
    public void write(long va, ByteBuf src, int srcIndex, int len) {
        int at = offsetOf(va, len);
        checkBuf(src, srcIndex, len, "source");
        if (len == 0) {
            return;
        }
        if (dataAddress != 0 && src.hasMemoryAddress()) {
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, dataAddress + at, len);
        } else if (src.hasArray()) {
            data.put(at, src.array(), src.arrayOffset() + srcIndex, len);
        } else if (data.hasArray() && !data.isReadOnly() && src.hasMemoryAddress() && PlatformDependent.hasUnsafe()) {
            PlatformDependent.copyMemory(src.memoryAddress() + srcIndex, data.array(), data.arrayOffset() + at, len);
        } else if (src.nioBufferCount() == 1) {
            ByteBuffer from = src.internalNioBuffer(srcIndex, len);
            data.put(at, from, from.position(), len);
        } else {
            int i = 0;
            for (; len - i >= Long.BYTES; i += Long.BYTES) {
                data.putLong(at + i, src.getLongLE(srcIndex + i));
            }
            for (; i < len; i++) {
                data.put(at + i, src.getByte(srcIndex + i));
            }
        }
    }

    /** Reads the little-endian 64-bit integer at {@code va}. */
    public synchronized long getLong(long va) {
        return data.getLong(offsetOf(va, Long.BYTES));
    }

    /** Writes {@code value} as a little-endian 64-bit integer at {@code va} (ATOMIC WRITE). */
    public synchronized void putLong(long va, long value) {
        data.putLong(offsetOf(va, Long.BYTES), value);
    }

    /**
     * Atomic compare and swap: stores {@code swap} at {@code va} if the 64-bit value there equals
     * {@code compare}.
     *
     * @return the value at {@code va} before the operation, whether or not it was swapped
     */
    public synchronized long compareAndSwap(long va, long compare, long swap) {
        int at = offsetOf(va, Long.BYTES);
        long original = data.getLong(at);
        if (original == compare) {
            data.putLong(at, swap);
        }
        return original;
    }

    /**
     * Atomic fetch and add: adds {@code add} to the 64-bit value at {@code va}, wrapping modulo
     * 2^64.
     *
     * @return the value at {@code va} before the addition
     */
    public synchronized long fetchAndAdd(long va, long add) {
        int at = offsetOf(va, Long.BYTES);
        long original = data.getLong(at);
        data.putLong(at, original + add);
        return original;
    }

    /**
     * Marks the region as used by one copy in progress on a thread other than the protocol
     * thread (an inline post's), which invalidation waits for; release it with {@link #unpin()}
     * as soon as the copy is done. The protocol thread checks {@link #isValid()} instead.
     *
     * @return false if the region has already been deregistered (the operation must treat the
     *     key as invalid)
     */
    public boolean pin() {
        int n;
        do {
            n = pins;
            if (n == DEREGISTERED) {
                return false;
            }
        } while (!PINS.compareAndSet(this, n, n + 1));
        return true;
    }

    /**
     * Ends one use started by {@link #pin()}.
     *
     * @throws IllegalStateException if the region is not pinned
     */
    public void unpin() {
        int n;
        do {
            n = pins;
            if (n <= 0) {
                throw new IllegalStateException(this + " is not pinned");
            }
        } while (!PINS.compareAndSet(this, n, n - 1));
    }

    /** The number of operations currently using the region (0 once deregistered). */
    public int pinCount() {
        return Math.max(pins, 0);
    }

    /**
     * True until the region is deregistered. On the protocol thread this is all a copy needs to
     * check: invalidation runs on that thread too, so none can come between the check and the copy.
     */
    public boolean isValid() {
        return pins != DEREGISTERED;
    }

    /**
     * Invalidates the region: later {@link #pin()}s and {@link #isValid()} checks fail, so every
     * later access through it fails its check. Called on the protocol thread (or when none runs),
     * it comes between packets; it waits only for a pin held by another thread's copy, which lasts
     * one copy (rxe's deregistration waits for the references of the packet being processed in
     * the same way). No message, however long, holds the region.
     *
     * @return false if the region was already invalid
     */
    boolean invalidate() {
        for (;;) {
            int n = pins;
            if (n == DEREGISTERED) {
                return false;
            }
            if (n == 0) {
                if (PINS.compareAndSet(this, 0, DEREGISTERED)) {
                    return true;
                }
            } else {
                Thread.onSpinWait(); // a copy in progress on the protocol thread
            }
        }
    }

    private int offsetOf(long va, int len) {
        if (len < 0 || !contains(va, len)) {
            throw new IndexOutOfBoundsException("va 0x" + Long.toHexString(va) + " length " + len
                    + " is outside " + this);
        }
        return (int) (va - this.va);
    }

    private static void checkBuf(ByteBuf buf, int index, int len, String what) {
        // Pooled heap buffers share one array, so the array path must not trust array bounds.
        if (index < 0 || index > buf.capacity() - len) {
            throw new IndexOutOfBoundsException(what + " index " + index + " length " + len
                    + " is outside the buffer (capacity " + buf.capacity() + ")");
        }
    }

    @Override
    public String toString() {
        return "memory region key 0x" + Integer.toHexString(key) + " [0x" + Long.toHexString(va) + ", 0x"
                + Long.toHexString(va + length) + ") " + AccessFlags.describe(access);
    }
}
