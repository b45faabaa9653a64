/**
 * rnic's verbs API and the protocol engine beneath it.
 *
 * <p>Applications {@code requires io.rnic.verbs} and program against the package
 * {@code io.rnic.verbs}: devices, protection domains, memory regions and windows, completion
 * queues, queue pairs, shared receive queues, address handles, XRC domains and EE contexts. A
 * device runs over a wire; the wires themselves (the simulated network, UDP) are in the module
 * {@code io.rnic.transport}, and the connection manager and the credit-based Send/Recv channel
 * in {@code io.rnic.verbs.cm}.
 *
 * <p>Three engine packages are exported because a wire is built on them: {@code io.rnic.core.wire}
 * (the {@code Wire} seam a device opens on), {@code io.rnic.core.time} (the clock and timers a
 * wire drives) and {@code io.rnic.core.packet} (RoCEv2 headers, the opcode table and the ICRC,
 * which captures and tools read). The rest of the engine is internal: exported only to rnic's
 * own command-line module, and unsupported for applications.
 */
module io.rnic.verbs {
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires org.slf4j;
    requires java.management;

    exports io.rnic.verbs;
    exports io.rnic.core.wire;
    exports io.rnic.core.time;
    exports io.rnic.core.packet;

    exports io.rnic.core.hca to io.rnic.bench;
    exports io.rnic.core.psn to io.rnic.bench;
    exports io.rnic.core.engine to io.rnic.bench;
}
