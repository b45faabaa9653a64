package io.rnic.transport.pcap;

/**
 * Where the IP header, the UDP header and the UDP payload of one captured frame are, as
 * {@link FrameParser} found them. Offsets index the frame's bytes, so that a caller can hand the
 * frame straight to code that wants the headers as captured (the RoCEv2 ICRC covers them).
 *
 * @param ipVersion       4 or 6
 * @param source          source address in its usual text form ({@code 10.0.0.1}, {@code fe80::1})
 * @param destination     destination address in the same form
 * @param sourcePort      UDP source port
 * @param destinationPort UDP destination port
 * @param ipOffset        offset of the first byte of the IP header in the frame
 * @param ipHeaderLength  length of the IP header including IPv4 options; the UDP header follows
 * @param payloadOffset   offset of the first byte of the UDP payload
 * @param payloadLength   UDP payload bytes present in the capture: the UDP length field minus 8,
 *                        cut to the bytes actually captured
 * @param declaredPayloadLength the UDP length field minus 8
 */
public record UdpDatagram(int ipVersion, String source, String destination, int sourcePort, int destinationPort,
                          int ipOffset, int ipHeaderLength, int payloadOffset, int payloadLength,
                          int declaredPayloadLength) {

    /** True if the capture holds fewer payload bytes than the UDP header announces (snap length). */
    public boolean truncated() {
        return payloadLength < declaredPayloadLength;
    }

    /** Offset of the UDP header in the frame. */
    public int udpOffset() {
        return ipOffset + ipHeaderLength;
    }
}
