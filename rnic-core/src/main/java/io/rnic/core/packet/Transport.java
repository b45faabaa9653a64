package io.rnic.core.packet;

/**
 * The transport service an opcode belongs to, selected by {@code opcode[7:5]} (reference §1.1).
 *
 * <p>Each transport contributes a header prefix that sits between the BTH and the operation's own
 * headers; the prefix differs for requests and responses (reference §1.3).
 */
public enum Transport {
    /** Reliable Connection, 0x00–0x1F. */
    RC(0x00, new Header[0], new Header[0]),
    /** Unreliable Connection, 0x20–0x3F. */
    UC(0x20, new Header[0], new Header[0]),
    /** Reliable Datagram, 0x40–0x5F: RDETH then DETH on requests, RDETH on responses. */
    RD(0x40, new Header[] {Header.RDETH, Header.DETH}, new Header[] {Header.RDETH}),
    /** Unreliable Datagram, 0x60–0x7F: DETH on every packet. */
    UD(0x60, new Header[] {Header.DETH}, new Header[0]),
    /** RoCEv2 congestion notification, 0x80–0x9F. */
    CNP(0x80, new Header[0], new Header[0]),
    /** eXtended Reliable Connection, 0xA0–0xBF: XRCETH on requests only. */
    XRC(0xA0, new Header[] {Header.XRCETH}, new Header[0]),
    /**
     * rnic's selective-retransmission RC (the selective-retransmission protocol), in the manufacturer-specific
     * range 0xE0–0xFF: RC's operations at RC's numbers plus 0xE0, with an SRETH after the BTH of
     * every packet. Only QPs that both set {@code LossRecovery.SELECTIVE} send or accept it.
     */
    SR(0xE0, new Header[] {Header.SRETH}, new Header[] {Header.SRETH});

    private final int base;
    private final Header[] requestPrefix;
    private final Header[] responsePrefix;

    Transport(int base, Header[] requestPrefix, Header[] responsePrefix) {
        this.base = base;
        this.requestPrefix = requestPrefix;
        this.responsePrefix = responsePrefix;
    }

    /** The first opcode of this transport's range. */
    public int base() {
        return base;
    }

    Header[] prefix(boolean response) {
        return response ? responsePrefix : requestPrefix;
    }
}
