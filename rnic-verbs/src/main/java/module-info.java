/**
 * What is built on rnic's verbs: the connection manager, shaped like librdmacm
 * ({@code io.rnic.verbs.cm}), the credit-based Send/Recv channel ({@code io.rnic.verbs.channel})
 * and a connected pair of queue pairs for tests ({@code io.rnic.verbs.testing}).
 *
 * <p>Requiring this module brings the verbs API ({@code io.rnic.verbs}) and the wires
 * ({@code io.rnic.transport}) with it.
 */
module io.rnic.verbs.cm {
    requires transitive io.rnic.verbs;
    requires transitive io.rnic.transport;

    exports io.rnic.verbs.cm;
    exports io.rnic.verbs.channel;
    exports io.rnic.verbs.testing;
}
