/**
 * The wires an rnic device sends through: the deterministic simulated network
 * ({@code io.rnic.transport.sim}) and the parts of its datacenter fabric
 * ({@code io.rnic.transport.fabric}), RoCEv2 over UDP with Netty ({@code io.rnic.transport.udp}),
 * seeded fault models ({@code io.rnic.transport.fault}) and pcap capture
 * ({@code io.rnic.transport.pcap}).
 *
 * <p>The UDP wire uses Netty's native epoll transport where the module
 * {@code io.netty.transport.epoll.linux.x86_64} is resolved (on the class path it always is; on the
 * module path add it with {@code --add-modules}), and Java NIO otherwise.
 */
module io.rnic.transport {
    requires transitive io.rnic.verbs;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;
    requires org.slf4j;

    exports io.rnic.transport;
    exports io.rnic.transport.fabric;
    exports io.rnic.transport.fault;
    exports io.rnic.transport.pcap;
    exports io.rnic.transport.sim;
    exports io.rnic.transport.udp;
}
