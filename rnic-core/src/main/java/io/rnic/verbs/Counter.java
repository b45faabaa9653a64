package io.rnic.verbs;

/**
 * The HCA's counters. Where Linux rxe has a counter for the same event, the name is rxe's
 * (reference §10.1); the others are ours and say what they count.
 */
public enum Counter {
    /** Packets the HCA handed to its wire, retransmissions included (rxe {@code sent_pkts}). */
    SENT_PKTS("sent_pkts"),
    /** Packets received that decoded and were accepted by the ICRC check (rxe {@code rcvd_pkts}). */
    RCVD_PKTS("rcvd_pkts"),
    /**
     * Requests received with a PSN the responder has already accepted, a requester's retries (rxe
     * {@code duplicate_request}).
     */
    DUPLICATE_REQUEST("duplicate_request"),
    /**
     * Requests ahead of the expected PSN that made the responder send a PSN Sequence Error NAK; one per NAK,
     * not per packet (rxe {@code out_of_seq_request}).
     */
    OUT_OF_SEQ_REQUEST("out_of_seq_request"),
    /** RNR NAKs the requester received (rxe {@code rcvd_rnr_err}). */
    RCVD_RNR_ERR("rcvd_rnr_err"),
    /** RNR NAKs the responder sent because no receive WQE was posted (rxe {@code send_rnr_err}). */
    SEND_RNR_ERR("send_rnr_err"),
    /**
     * PSN Sequence Error NAKs received that acknowledged earlier packets, as rxe counts them (rxe
     * {@code rcvd_seq_err}).
     */
    RCVD_SEQ_ERR("rcvd_seq_err"),
    /**
     * Send WQEs failed with {@link WcStatus#RETRY_EXC_ERR} because {@code retry_cnt} ran out (rxe
     * {@code retry_exceeded_err}).
     */
    RETRY_EXCEEDED_ERR("retry_exceeded_err"),
    /**
     * Send WQEs failed with {@link WcStatus#RNR_RETRY_EXC_ERR} because {@code rnr_retry} ran out (rxe
     * {@code retry_rnr_exceeded_err}).
     */
    RETRY_RNR_EXCEEDED_ERR("retry_rnr_exceeded_err"),
    /**
     * Retries the requester started (after an ACK timeout, a sequence NAK or an implied NAK), each using one
     * {@code retry_cnt} (rxe {@code completer_retry_err}).
     */
    COMPLETER_RETRY_ERR("completer_retry_err"),
    /**
     * Named after rxe {@code send_err} (packets that could not be sent); the HCA does not count it, so it
     * stays zero: send failures are counted by the wire's own {@code send_err}.
     */
    SEND_ERR("send_err"),
    /**
     * SEND work requests (any variant) completed on the send queue, whatever their status (rxe
     * {@code rdma_sends}).
     */
    RDMA_SENDS("rdma_sends"),
    /** Receive WQEs completed successfully (rxe {@code rdma_recvs}). */
    RDMA_RECVS("rdma_recvs"),
    /**
     * Packets dropped because their BTH P_Key did not match the QP's ({@code ibv_port_attr.bad_pkey_cntr}).
     */
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
    /**
     * ACK packets the responder sent (positive acknowledgements only; atomic ACKs and READ responses are not
     * counted).
     */
    ACKS_SENT("acks_sent"),
    /** NAKs the responder sent, RNR NAKs included. */
    NAKS_SENT("naks_sent"),
    /** NAKs the requester received, other than RNR NAKs (those are {@link #RCVD_RNR_ERR}). */
    RCVD_NAKS("rcvd_naks"),
    /** Request packets sent again by a retry. */
    RETRANSMITTED_PKTS("retransmitted_pkts"),
    /**
     * Expiries of the local ACK timer ({@code ibv_qp_attr.timeout}) that started a retry (mlx5
     * {@code local_ack_timeout_err}).
     */
    LOCAL_ACK_TIMEOUTS("local_ack_timeouts"),
    /** RDMA READ response packets the responder sent, replays included. */
    READ_RESPONSES_SENT("read_responses_sent"),
    /** READs whose responses stopped for a duplicate READ with an earlier PSN (IBA 9.7, repeated duplicate requests rule 6). */
    READ_STREAMS_INTERRUPTED("read_streams_interrupted"),
    /** Duplicate READs dropped because the responses they ask for are already on their way. */
    DUPLICATE_REQUEST_IN_PROGRESS("duplicate_request_in_progress"),
    /**
     * Atomic requests the responder executed on memory; duplicates answered from the saved result are not
     * counted.
     */
    ATOMICS_EXECUTED("atomics_executed"),
    /** ATOMIC WRITEs the responder placed in memory; duplicates, answered without writing again, are not counted. */
    ATOMIC_WRITES_EXECUTED("atomic_writes_executed"),
    /** FLUSHes the responder executed; duplicates, answered without flushing again, are not counted. */
    FLUSHES_EXECUTED("flushes_executed"),
    /**
     * Responses dropped because their PSN was already acknowledged or a retry covering it was already under
     * way.
     */
    DUPLICATE_RESPONSE("duplicate_response"),
    /**
     * Responses dropped because their PSN is after the last PSN sent: nothing in this QP's window asked for
     * them.
     */
    GHOST_RESPONSE("ghost_response"),
    /**
     * READ responses that arrived past the expected PSN, implying earlier ones were lost and starting a retry
     * (mlx5 {@code implied_nak_seq_err}).
     */
    IMPLIED_NAK("implied_nak"),
    /** Datagrams larger than the port MTU, completed without being sent (C10-93.1.1). */
    OVERSIZED_DATAGRAMS("oversized_datagrams"),
    /**
     * XRC requests NAKed because the XRC SRQ their first or only packet names is not an XRC SRQ of the
     * target QP's XRC domain (o9-114.a6).
     */
    XRC_DOMAIN_VIOLATIONS("xrc_domain_violations"),
    /** XRC middle or last packets NAKed because they name another XRC SRQ than their message's first (o9-114.a5). */
    XRC_SRQ_MISMATCHES("xrc_srq_mismatches"),
    /** Requests kept in a reorder buffer because they arrived ahead of the expected PSN (out-of-order reception). */
    OOO_REQUESTS_HELD("ooo_requests_held"),
    /** Requests placed in memory on arrival ahead of the expected PSN, from their SRETH (selective retransmission). */
    OOO_REQUESTS_PLACED("ooo_requests_placed"),
    /** Requests ahead of the expected PSN that were already held or placed: dropped. */
    OOO_DUPLICATES("ooo_duplicates"),
    /** Requests ahead of the expected PSN that did not fit the reorder buffer: handled as go-back-N does. */
    OOO_OVERFLOWS("ooo_overflows"),
    /** Holes declared lost by the responder (unfilled too long, or behind too many later packets) and NAKed. */
    HOLE_NAKS_SENT("hole_naks_sent"),
    /** Selective NAKs received, each listing the PSNs the responder misses (the selective-retransmission protocol). */
    RCVD_SELECTIVE_NAKS("rcvd_selective_naks"),
    /** Packets resent because a selective NAK listed them. */
    SELECTIVE_RETRANSMISSIONS("selective_retransmissions"),
    /** READ responses placed ahead of the expected response PSN (out-of-order reception). */
    OOO_READ_RESPONSES("ooo_read_responses"),
    /** Smaller READ requests sent to fetch only the missing pieces of a READ's responses (selective retransmission). */
    SELECTIVE_REREADS("selective_rereads"),
    /**
     * RD requests NAKed Invalid RD Request because the QP their BTH names is not an RD QP able to
     * receive, or a middle or last packet names another QP than its message's first (9.7.8.1).
     */
    RD_INVALID_REQUESTS("rd_invalid_requests"),
    /** RD requests NAKed Invalid RD Request because their QP and EE context are in different RDDs. */
    RD_RDD_VIOLATIONS("rd_rdd_violations"),
    /** RD messages abandoned for an error of their QP, the EE context carrying on (9.7.8.5). */
    RD_MESSAGES_ABANDONED("rd_messages_abandoned"),
    /** RD messages suspended by an RNR NAK, to restart as new messages after the timer (9.7.8.5). */
    RD_MESSAGES_SUSPENDED("rd_messages_suspended"),
    /** RESYNCs this HCA's EE contexts sent that were acknowledged (9.7.3.2.2). */
    RD_RESYNCS_COMPLETED("rd_resyncs_completed"),
    /** RESYNCs accepted by this HCA's EE contexts as responders (PSNs moved, message in progress dropped). */
    RD_RESYNCS_RECEIVED("rd_resyncs_received"),
    /** Suspended RD messages that a RESYNC's MSN showed the responder had completed (9.7.8.6.1, "+2"). */
    RD_SUSPENDED_FOUND_COMPLETE("rd_suspended_found_complete"),
    /**
     * Abandoned RD SENDs and WRITEs that a RESYNC's MSN showed the responder had completed: they
     * complete successfully after all (9.7.8.6.1, "+2").
     */
    RD_ABANDONED_FOUND_COMPLETE("rd_abandoned_found_complete"),
    /**
     * RESYNC acknowledgements whose MSN was neither one nor two above the responder's MSN before
     * the dropped message: a corrupt response, which moves the EE context to ERR (9.7.8.6.1).
     */
    RD_RESYNC_CORRUPT_MSN("rd_resync_corrupt_msn"),
    /**
     * Packets for a QP that arrived with Congestion Experienced in their IP ECN field: a switch
     * marked them on the way (ConnectX {@code np_ecn_marked_roce_packets}).
     */
    NP_ECN_MARKED_ROCE_PACKETS("np_ecn_marked_roce_packets"),
    /**
     * Congestion notification packets (CNPs, opcode 0x81) that reached a QP whose congestion
     * control does not react to them (ConnectX {@code rp_cnp_ignored}).
     */
    RP_CNP_IGNORED("rp_cnp_ignored"),
    /**
     * CNPs that reached a QP whose congestion control reacted to them: its rate was cut
     * (ConnectX {@code rp_cnp_handled}).
     */
    RP_CNP_HANDLED("rp_cnp_handled"),
    /**
     * CNPs this device sent in answer to CE-marked packets, at most one per QP per CNP interval
     * (ConnectX {@code np_cnp_sent}).
     */
    NP_CNP_SENT("np_cnp_sent");

    private final String rxeName;

    Counter(String name) {
        this.rxeName = name;
    }

    /**
     * The counter's name as reported.
     *
     * @return the name in {@link Counters#snapshot()}, rxe's name where one exists
     */
    public String label() {
        return rxeName;
    }
}
