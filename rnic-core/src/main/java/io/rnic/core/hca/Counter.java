package io.rnic.core.hca;

/**
 * The HCA's counters. Where Linux rxe has a counter for the same event, the name is rxe's
 * (reference §10.1); the others are ours and say what they count.
 */
public enum Counter {
    SENT_PKTS("sent_pkts"),
    RCVD_PKTS("rcvd_pkts"),
    DUPLICATE_REQUEST("duplicate_request"),
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    RCVD_RNR_ERR("rcvd_rnr_err"),
    SEND_RNR_ERR("send_rnr_err"),
    RCVD_SEQ_ERR("rcvd_seq_err"),
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
    COMPLETER_RETRY_ERR("completer_retry_err"),
    SEND_ERR("send_err"),
    RDMA_SENDS("rdma_sends"),
    RDMA_RECVS("rdma_recvs"),
    BAD_PKEY_CNTR("bad_pkey_cntr"),
    /** Datagrams whose DETH Q_Key was not the receiving QP's (dropped). */
    QKEY_VIOL_CNTR("qkey_viol_cntr"),
    /** Packets whose ICRC did not match (rxe drops these without counting). */
    RCVD_ICRC_ERR("rcvd_icrc_err"),
    /** Packets the decoder rejected (truncated, unknown opcode, bad PadCnt, ...). */
    RCVD_MALFORMED("rcvd_malformed"),
    /** Packets for a QP number that does not exist. */
    RCVD_UNKNOWN_QP("rcvd_unknown_qp"),
    /** Packets whose opcode's transport is not the QP's, or that the QP's state refuses. */
    RCVD_WRONG_QP_STATE_OR_TYPE("rcvd_wrong_qp_state_or_type"),
    /** Packets from an address other than the QP's address vector. */
    RCVD_ADDR_MISMATCH("rcvd_addr_mismatch"),
    /** Requests or responses the state machines dropped silently (ghost or stale responses...). */
    RCVD_DROPPED("rcvd_dropped"),
    /**
     * Exceptions the HCA caught on its protocol thread (a bug, never a peer's fault): a packet
     * dropped after an internal error (also counted in {@code rcvd_dropped}), or work owed at the
     * end of a receive batch that failed. Zero in a healthy run, whatever the peers send.
     */
    INTERNAL_ERRORS("internal_errors"),
    ACKS_SENT("acks_sent"),
    NAKS_SENT("naks_sent"),
    RCVD_NAKS("rcvd_naks"),
    RETRANSMITTED_PKTS("retransmitted_pkts"),
    LOCAL_ACK_TIMEOUTS("local_ack_timeouts"),
    READ_RESPONSES_SENT("read_responses_sent"),
    /** READs whose responses stopped for a duplicate READ with an earlier PSN (seed 000 §3.3.2.2 rule 6). */
    READ_STREAMS_INTERRUPTED("read_streams_interrupted"),
    /** Duplicate READs dropped because the responses they ask for are already on their way. */
    DUPLICATE_REQUEST_IN_PROGRESS("duplicate_request_in_progress"),
    ATOMICS_EXECUTED("atomics_executed"),
    DUPLICATE_RESPONSE("duplicate_response"),
    GHOST_RESPONSE("ghost_response"),
    IMPLIED_NAK("implied_nak"),
    /** Datagrams larger than the port MTU, completed without being sent (C10-93.1.1). */
    OVERSIZED_DATAGRAMS("oversized_datagrams");

    private final String rxeName;

    Counter(String name) {
        this.rxeName = name;
    }

    /** The counter's name as reported (rxe's name where one exists). */
    public String label() {
        return rxeName;
    }
}
