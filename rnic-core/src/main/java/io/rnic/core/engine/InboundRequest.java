package io.rnic.core.engine;

import io.rnic.core.memory.MemoryRegion;
import io.rnic.core.memory.MemoryWindow;
import io.rnic.core.memory.RemoteKey;
import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;

/**
 * The request packet a responder is handling: how it arrived (its IP header, whether its data was
 * placed on arrival, whether it was held ahead of a hole) and what its checks found: the error
 * that stops it, or the region and address a READ or an atomic was granted. The checks
 * ({@link RequestChecks}) write it, the execution ({@link RequestExecution}) reads it.
 */
final class InboundRequest {
    /** The IP and UDP fields of the packet (the HCA's reused view). */
    private PseudoHeader ip;
    /**
     * The payload length of the request being handled when its data was placed on arrival (only
     * its headers were kept, seed 002's extended protocol), else -1.
     */
    int placedPayload = -1;
    /**
     * The request being processed was held ahead of a hole and is handed back now, by a receive
     * window that acknowledges what it held (the extended protocol): it is acknowledged whatever its
     * AckReq bit says, so that the ACK for the packet that filled the hole advances over the run
     * held behind it (IRN's cumulative ACK) and the requester resends none of them.
     */
    boolean acknowledgeHeld;
    /** Why the request fails, once a check or its execution found it ({@link Responder.State#ERROR}). */
    ResponderError error;
    /** The region a READ being answered was checked against (valid then), or null for length 0. */
    MemoryRegion readMr;
    /** Where the READ accesses its region (a window's address translated). */
    long readVa;
    /** The window a READ being answered was granted through (null for a region's key), and its generation then. */
    MemoryWindow readMw;
    int readMwGeneration;
    /** The region an atomic, ATOMIC WRITE or FLUSH being executed was checked against (valid then). */
    MemoryRegion atomicMr;
    /** Where the atomic or ATOMIC WRITE accesses its region (a window's address translated). */
    long atomicVa;
    /** What an R_Key resolved to (reused). */
    final RemoteKey remoteKey = new RemoteKey();

    /**
     * A request arrives with IP header {@code ip} and, if its data was placed on arrival,
     * payload length {@code placed} (else -1). The HCA hands the same header view with every
     * packet, and a reference store into this long-lived object costs G1's post-write barrier
     * even when the value is the one already there: an unchanged view is not stored again.
     */
    void arrived(PseudoHeader ip, int placed) {
        if (this.ip != ip) {
            this.ip = ip;
        }
        placedPayload = placed;
    }

    /** The IP header the request arrived with (a datagram's GRH is built from it). */
    PseudoHeader ip() {
        return ip;
    }

    /** The payload length of the request (kept apart when only its headers were). */
    int payloadLength(RocePacket p) {
        return placedPayload >= 0 ? placedPayload : p.payloadLength();
    }

    /** Records why the request fails; returns the state that handles it. */
    Responder.State fail(ResponderError e) {
        this.error = e;
        return Responder.State.ERROR;
    }
}
