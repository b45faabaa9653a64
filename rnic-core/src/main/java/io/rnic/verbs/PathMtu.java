package io.rnic.verbs;

/** Path MTUs with the values of libibverbs {@code enum ibv_mtu}. */
public enum PathMtu {
    /** 256 bytes. */
    MTU_256(1, 256),
    /** 512 bytes. */
    MTU_512(2, 512),
    /** 1024 bytes. */
    MTU_1024(3, 1024),
    /** 2048 bytes. */
    MTU_2048(4, 2048),
    /** 4096 bytes. */
    MTU_4096(5, 4096);

    private static final PathMtu[] ALL = values();

    private final int value;
    private final int bytes;

    PathMtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /**
     * The numeric value, as in libibverbs.
     *
     * @return the {@code ibv_mtu} value, 1..5
     */
    public int value() {
        return value;
    }

    /**
     * The MTU in bytes.
     *
     * @return the largest payload of one packet, in bytes
     */
    public int bytes() {
        return bytes;
    }

    /**
     * The MTU of {@code bytes} bytes.
     *
     * @param bytes the MTU in bytes
     * @return the matching MTU
     * @throws IllegalArgumentException if {@code bytes} is not 256, 512, 1024, 2048 or 4096
     */
    public static PathMtu ofBytes(int bytes) {
        for (PathMtu m : ALL) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("path MTU " + bytes + " bytes is not one of 256, 512, 1024, 2048, 4096");
    }

    /**
     * The MTU with {@code ibv_mtu} value {@code value}.
     *
     * @param value an {@code ibv_mtu} value ({@code IBV_MTU_256} is 1)
     * @return the matching MTU
     * @throws IllegalArgumentException if {@code value} is not 1..5
     */
    public static PathMtu ofValue(int value) {
        if (value < 1 || value > ALL.length) {
            throw new IllegalArgumentException("path MTU value " + value + " is not an ibv_mtu (1..5)");
        }
        return ALL[value - 1];
    }
}
