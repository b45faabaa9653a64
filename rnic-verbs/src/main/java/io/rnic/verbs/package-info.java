/**
 * The verbs-style application API (device, protection domain, memory region, completion queue,
 * queue pair). It holds no protocol logic of its own: it validates arguments, owns threading
 * and hands work to the protocol core in {@code rnic-core} over a wire from
 * {@code rnic-transport}.
 */
package io.rnic.verbs;
