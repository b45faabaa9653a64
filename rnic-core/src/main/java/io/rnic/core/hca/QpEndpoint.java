package io.rnic.core.hca;

import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;

/**
 * What the HCA's receive path hands a packet to once it has decoded it, verified its ICRC and
 * found the destination QP number in its table. Everything that depends on the QP's transport
 * (which opcodes it takes, which source addresses, P_Key and Q_Key checks, its state) is the
 * endpoint's business.
 */
@FunctionalInterface
public interface QpEndpoint {
    /**
     * Handles one packet addressed to this QP. {@code ip} describes the IP and UDP headers it
     * arrived with (addresses and ports); both views are reused for the next packet.
     */
    void receive(RocePacket packet, PseudoHeader ip);
}
