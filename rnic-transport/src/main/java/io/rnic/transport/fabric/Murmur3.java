package io.rnic.transport.fabric;

/**
 * MurmurHash3 x86_32 (Austin Appleby, public domain, SMHasher), the ECMP hash of HPCC's ns-3
 * switch ({@code switch-node.cc}, {@code EcmpHash}): 4-byte blocks read little-endian, constants
 * {@code 0xcc9e2d51} and {@code 0x1b873593}, rotations 15 and 13, {@code h·5 + 0xe6546b64},
 * the length folded in, then the 32-bit finaliser. Naming the hash (and seeding it per switch)
 * keeps a run's paths the same across versions of rnic and of the JDK.
 *
 * <p>Allocation-free; the three-word form is the per-packet one.
 */
final class Murmur3 {
    private static final int C1 = 0xcc9e2d51;
    private static final int C2 = 0x1b873593;

    private Murmur3() {
    }

    /**
     * The hash of the 12-byte ECMP key HPCC's switch builds: {@code w0} = source IPv4,
     * {@code w1} = destination IPv4 (each as a number, first octet most significant, as
     * {@code Ipv4Address::Get()} returns it), {@code w2} = {@code sport | dport << 16}, each word
     * laid out little-endian, as that simulator's x86 host stores them. Equal to
     * {@link #hash32(byte[], int, int, int)} over those 12 bytes.
     */
    static int hash32(int w0, int w1, int w2, int seed) {
        int h = seed;
        h = mixH(h, w0);
        h = mixH(h, w1);
        h = mixH(h, w2);
        return fmix(h ^ 12);
    }

    /** The hash of {@code length} bytes of {@code data} from {@code offset}. */
    static int hash32(byte[] data, int offset, int length, int seed) {
        if (offset < 0 || length < 0 || offset > data.length - length) {
            throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + length) + " of " + data.length);
        }
        int h = seed;
        int blocks = length >>> 2;
        int i = offset;
        for (int b = 0; b < blocks; b++, i += 4) {
            int k = (data[i] & 0xFF) | (data[i + 1] & 0xFF) << 8 | (data[i + 2] & 0xFF) << 16 | (data[i + 3] & 0xFF) << 24;
            h = mixH(h, k);
        }
        int tail = length & 3;
        if (tail > 0) {
            // The last 1-3 bytes, little-endian, as one partial block.
            int k = 0;
            for (int j = tail - 1; j >= 0; j--) {
                k = k << 8 | (data[i + j] & 0xFF);
            }
            h ^= mixK(k);
        }
        return fmix(h ^ length);
    }

    private static int mixK(int k) {
        k *= C1;
        k = Integer.rotateLeft(k, 15);
        return k * C2;
    }

    private static int mixH(int h, int k) {
        h ^= mixK(k);
        h = Integer.rotateLeft(h, 13);
        return h * 5 + 0xe6546b64;
    }

    private static int fmix(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }
}
