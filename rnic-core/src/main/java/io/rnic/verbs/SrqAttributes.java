package io.rnic.verbs;

/**
 * The attributes of a shared receive queue ({@code struct ibv_srq_attr}).
 *
 * @param maxWr    receive WQEs it holds ({@code max_wr})
 * @param maxSge   scatter/gather entries per receive WR ({@code max_sge})
 * @param srqLimit the limit at which {@code SRQ_LIMIT_REACHED} fires once, 0 when not armed
 */
public record SrqAttributes(int maxWr, int maxSge, int srqLimit) {
}
