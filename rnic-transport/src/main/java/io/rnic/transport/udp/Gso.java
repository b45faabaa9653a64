package io.rnic.transport.udp;

/**
 * When a UDP wire may send a run of packets as one GSO super-datagram (the kernel splits it).
 * The kernel numbers the IPv4 identification of the segments it cuts (base, base+1, ...) and the
 * ICRC covers the identification: a kernel RoCEv2 peer (Linux rxe), which checks the ICRC over
 * the real header, would drop every segment but the first, while an rnic receiver rebuilds the
 * pseudo header with identification 0 and accepts them all. A live capture on the sending host
 * also shows the unsplit super-datagram. Hence a per-wire setting.
 */
public enum Gso {
    /** One datagram per packet, always (what live captures and kernel peers need). */
    OFF,
    /** Runs of packets go out as GSO super-datagrams to any destination. */
    ON,
    /** GSO only toward rnic wires of this JVM; one datagram per packet toward anything else. */
    AUTO
}
