package io.rnic.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * MurmurHash3 x86_32, HPCC's ECMP hash. Vectors: the published ones for MurmurHash3_x86_32
 * (the SMHasher reference as listed in "MurmurHash3 test vectors", Stack Overflow question
 * 14747343, and used by Boost.Hash2's and other libraries' tests).
 */
class Murmur3Test {

    private static int hash(int seed, int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return Murmur3.hash32(b, 0, b.length, seed);
    }

    @Test
    void theBytesFormMatchesThePublishedMurmur3X86_32Vectors() {
        byte[] fox = "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x2e4ff723, Murmur3.hash32(fox, 0, fox.length, 0));
        assertEquals(0, hash(0));
        assertEquals(0x514E28B7, hash(1));
        assertEquals(0x81F16F39, hash(0xFFFFFFFF));
        assertEquals(0x76293B50, hash(0, 0xff, 0xff, 0xff, 0xff));
        assertEquals(0xF55B516B, hash(0, 0x21, 0x43, 0x65, 0x87));
        assertEquals(0x2362F9DE, hash(0x5082EDEE, 0x21, 0x43, 0x65, 0x87));
        assertEquals(0x7E4A8634, hash(0, 0x21, 0x43, 0x65));
        assertEquals(0xA0F7B07A, hash(0, 0x21, 0x43));
        assertEquals(0x72661CF4, hash(0, 0x21));
        assertEquals(0x2362F9DE, hash(0, 0, 0, 0, 0));
        assertEquals(0x85F0B427, hash(0, 0, 0, 0));
        assertEquals(0x30F4C306, hash(0, 0, 0));
        assertEquals(0x514E28B7, hash(0, 0));
        byte[] hello = "Hello, world!".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0xFAF6CDB3, Murmur3.hash32(hello, 0, hello.length, 1234));
        assertEquals(0xBF505788, Murmur3.hash32(hello, 0, hello.length, 4321));
        byte[] padded = new byte[hello.length + 3];
        System.arraycopy(hello, 0, padded, 2, hello.length);
        assertEquals(0xFAF6CDB3, Murmur3.hash32(padded, 2, hello.length, 1234), "an offset reads the same bytes");
    }

    @Test
    void theEcmpKeyWordsHashAsTheirTwelveLittleEndianBytes() {
        SplittableRandom r = new SplittableRandom(41);
        byte[] key = new byte[12];
        for (int i = 0; i < 10_000; i++) {
            int sip = r.nextInt();
            int dip = r.nextInt();
            int ports = r.nextInt();
            int seed = r.nextInt();
            int[] words = {sip, dip, ports};
            for (int w = 0; w < 3; w++) {
                for (int b = 0; b < 4; b++) {
                    key[4 * w + b] = (byte) (words[w] >>> (8 * b));
                }
            }
            assertEquals(Murmur3.hash32(key, 0, 12, seed), Murmur3.hash32(sip, dip, ports, seed));
        }
    }

    /**
     * RoCEv2 puts a flow's entropy in the UDP source port: over many source ports, ECMP's
     * hash mod 4 must give each of 4 paths its share. 40,000 flows, p = 1/4: each count is
     * binomial with sigma = sqrt(40000 * 1/4 * 3/4) = 86.6; allow 5 sigma.
     */
    @Test
    void sourcePortsSpreadEvenlyOverEqualCostPaths() {
        int[] counts = new int[4];
        int sip = Topology.hostAddressBits(1);
        int dip = Topology.hostAddressBits(2);
        for (int sport = 0; sport < 40_000; sport++) {
            int h = Murmur3.hash32(sip, dip, (49152 + sport) & 0xFFFF | 4791 << 16, 320);
            counts[Integer.remainderUnsigned(h, 4)]++;
        }
        for (int c : counts) {
            assertTrue(Math.abs(c - 10_000) <= 5 * 86.6, java.util.Arrays.toString(counts));
        }
    }

    @Test
    void theWordFormAllocatesNothing() {
        int[] sink = new int[1];
        Allocations.assertNonePerCall(200_000, () -> sink[0] += Murmur3.hash32(sink[0], 2, 3, 4));
    }
}
