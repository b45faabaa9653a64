package io.rnic.verbs.cm;

import io.rnic.verbs.AddressHandle;

/**
 * The peer a UD ID resolved through SIDR ({@code struct rdma_ud_param}): send to its QP with
 * this address handle and Q_Key.
 *
 * @param ah          an address handle for the peer, in the protection domain of the ID's QP
 * @param qpNum       the peer's QP number
 * @param qkey        the Q_Key the peer's QP accepts
 * @param privateData the private data of the SIDR_REP
 */
public record UdParam(AddressHandle ah, int qpNum, int qkey, byte[] privateData) {
}
