package io.rnic.transport.pcap;

import java.time.Instant;

/**
 * One captured frame as {@link PcapReader} yields it.
 *
 * <p>The bytes are owned by the frame (a fresh array per frame), so callers may patch a copy or
 * keep frames around; {@code equals} compares the array by identity, as records do.
 *
 * @param number         position in the file, starting at 1 (what Wireshark shows as "No.")
 * @param timestampNanos capture time in nanoseconds since the Unix epoch; 0 when the block
 *                       carries none (pcapng Simple Packet Block)
 * @param linkType       the {@link LinkType} of the interface the frame was captured on
 * @param originalLength length of the frame on the wire; larger than {@code data.length} when
 *                       the capture was cut by a snap length
 * @param data           the captured bytes, starting with the link-layer header
 */
public record PcapFrame(int number, long timestampNanos, int linkType, int originalLength, byte[] data) {

    /** The capture time as an {@link Instant}. */
    public Instant timestamp() {
        return Instant.ofEpochSecond(Math.floorDiv(timestampNanos, 1_000_000_000L),
                Math.floorMod(timestampNanos, 1_000_000_000L));
    }

    /** Number of bytes captured, which may be fewer than {@link #originalLength()}. */
    public int capturedLength() {
        return data.length;
    }

    @Override
    public String toString() {
        return "PcapFrame[#" + number + " " + LinkType.name(linkType) + " " + data.length + "/" + originalLength + " bytes]";
    }
}
