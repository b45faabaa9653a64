package io.rnic.transport.pcap;

import java.io.IOException;

/**
 * The input is not a pcap or pcapng file at all. Damage further into a file that started well is
 * not an exception: {@link PcapReader} then ends the stream and reports the damage through
 * {@link PcapReader#problem()}, so that a tool still shows every frame before it.
 */
public final class PcapFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** @param message what the file starts with instead, for the user to recognise it */
    public PcapFormatException(String message) {
        super(message);
    }
}
