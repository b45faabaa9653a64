package io.rnic.transport.pcap;

import io.rnic.core.packet.DecodeResult;
import io.rnic.core.packet.Opcode;

/**
 * What {@link RoceCaptureDecoder} made of one RoCEv2 datagram: the verdicts for tests and
 * counters, and the text line for people.
 *
 * @param frameNumber the frame's number in its capture
 * @param datagram    where the packet sits in the frame
 * @param result      {@link DecodeResult#OK} or why {@code PacketDecoder} rejected the packet
 * @param opcodeByte  the BTH opcode byte, or -1 if the UDP payload is empty
 * @param opcode      the opcode's table row, or {@code null} for an unknown opcode
 * @param icrc        the ICRC verdict; only decoded packets are checked
 * @param line        the one-line description {@code rnic decode} prints
 */
public record DecodedPacket(int frameNumber, UdpDatagram datagram, DecodeResult result, int opcodeByte,
                            Opcode opcode, IcrcVerdict icrc, String line) {

    /** The outcome of the ICRC check. */
    public enum IcrcVerdict {
        OK,
        BAD,
        /** Rejected packets are not checked: without a valid structure there is no ICRC to trust. */
        NOT_CHECKED
    }

    /** True if the packet decoded and its ICRC matched. */
    public boolean clean() {
        return result.ok() && icrc == IcrcVerdict.OK;
    }
}
