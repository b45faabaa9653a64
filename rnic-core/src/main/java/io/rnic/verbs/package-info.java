/**
 * The verbs-style application API, in one package: the objects (device, protection domain,
 * memory region, completion queue, queue pair, shared receive queue, address handle) and the
 * values they take and give (work requests, completions, opcodes, statuses, access flags, QP
 * attributes, counters), and {@link io.rnic.verbs.RnicException}, the base of every failure of
 * the library. The objects hold no protocol logic of their own: they validate arguments and hand
 * work to the protocol engine ({@code io.rnic.core.*}), which reads the values directly, over a
 * wire ({@code SimNetwork} or {@code UdpWire} from {@code rnic-transport}).
 */
package io.rnic.verbs;
