package io.rnic.verbs;

import java.util.Arrays;

/**
 * The growable scatter/gather entries of a work request as the application fills it: address,
 * length and local key per entry. Shared by send and receive work requests.
 */
final class Sges {
    long[] addr = new long[4];
    int[] length = new int[4];
    int[] lkey = new int[4];
    int count;

    void add(long address, int len, int key) {
        if (len < 0) {
            throw new IllegalArgumentException("an SGE's length is a byte count from 0 to 2^31 - 1; " + len
                    + " is negative");
        }
        if (count == addr.length) {
            addr = Arrays.copyOf(addr, count * 2);
            length = Arrays.copyOf(length, count * 2);
            lkey = Arrays.copyOf(lkey, count * 2);
        }
        addr[count] = address;
        length[count] = len;
        lkey[count] = key;
        count++;
    }

    long totalLength() {
        long t = 0;
        for (int i = 0; i < count; i++) {
            t += Integer.toUnsignedLong(length[i]);
        }
        return t;
    }

}
