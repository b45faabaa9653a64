package io.rnic.transport.fabric;

import io.netty.buffer.ByteBuf;
import io.rnic.transport.sim.SimScheduler;
import java.net.InetSocketAddress;

/**
 * One Ethernet frame on its way through a fabric: a RoCEv2 packet with the IP and UDP fields it
 * travels with, or a PFC PAUSE frame. Frames are pooled by their {@link Fabric} and are their own
 * scheduler event: a frame is in exactly one place at a time (a port's queue, or on a link
 * towards the next node), so scheduling its arrival allocates nothing.
 */
final class Frame extends SimScheduler.Activation {
    /** A RoCEv2 packet. */
    static final int DATA = 0;
    /** An IEEE 802.1Qbb PFC PAUSE frame. */
    static final int PFC = 1;
    /**
     * What a link carries around a RoCEv2 packet (BTH through ICRC): Ethernet header (14), IPv4
     * (20), UDP (8) and the frame check sequence (4). Buffers account whole frames.
     */
    static final int ENCAPSULATION = 14 + 20 + 8 + 4;
    /** The preamble, start delimiter (8) and inter-frame gap (12) every frame costs a link. */
    static final int LINK_OVERHEAD = 20;
    /** A PFC frame: the 60-byte minimum frame and its FCS. */
    static final int PFC_BYTES = PfcFrame.LENGTH + 4;

    private final Fabric fabric;
    int kind;
    /** The RoCEv2 packet (BTH through ICRC), owned by the frame while it travels. */
    ByteBuf packet;
    InetSocketAddress source;
    InetSocketAddress destination;
    /** The IP TOS byte: DSCP and ECN, which a switch may mark CE. */
    int tos;
    /** Still unsealed and untouched since the sending HCA built it (its ICRC not computed). */
    boolean intact;
    /** The PFC priority (traffic class) the frame is queued and paused in. */
    int priority;
    int srcHost;
    /** The destination host's node id, or -1 for a multicast group. */
    int dstHost;
    /** The multicast group's index in the fabric, or -1. */
    int group;
    /** The ECMP key: source and destination IPv4 addresses, and the UDP ports (sport | dport << 16). */
    int sipBits;
    int dipBits;
    int portsWord;
    /** The frame's length in bytes, FCS included: what a buffer holds of it. */
    int frameBytes;
    /** A PFC frame's class-enable vector, pause times (quanta) and source MAC. */
    int pfcEnable;
    final int[] quanta = new int[8];
    long srcMac;
    /** Where the frame arrives next: the node, the port it arrives on, and the link it crosses. */
    Node at;
    int inPort;
    FabricLink via;
    /** The port it entered the switch that holds it, for the buffer's accounting at dequeue. */
    int switchInPort;
    /** Set while the frame waits out a switch's forwarding delay. */
    boolean forwarding;
    Frame nextFree;

    Frame(Fabric fabric) {
        this.fabric = fabric;
    }

    @Override
    protected void fire() {
        if (forwarding) {
            forwarding = false;
            ((SwitchNode) at).forward(this, inPort);
            return;
        }
        FabricLink link = via;
        via = null;
        if (link != null && !link.isUp()) {
            link.lostInFlight();
            fabric.free(this); // the link went down while the frame was on it
            return;
        }
        at.receive(this, inPort);
    }

    @Override
    protected void discard() {
        fabric.free(this);
    }

    /** Clears everything but the pool's link, releasing the packet if the frame still holds one. */
    void clear() {
        if (packet != null) {
            packet.release();
            packet = null;
        }
        kind = DATA;
        source = null;
        destination = null;
        tos = 0;
        intact = false;
        priority = 0;
        srcHost = -1;
        dstHost = -1;
        group = -1;
        sipBits = 0;
        dipBits = 0;
        portsWord = 0;
        frameBytes = 0;
        pfcEnable = 0;
        java.util.Arrays.fill(quanta, 0);
        srcMac = 0;
        at = null;
        inPort = 0;
        via = null;
        switchInPort = 0;
        forwarding = false;
    }

    @Override
    public String toString() {
        return kind == PFC ? "PFC frame (enable 0x" + Integer.toHexString(pfcEnable) + ")"
                : "frame " + source + " -> " + destination + " priority " + priority + " (" + frameBytes + " B)";
    }
}
