package io.rnic.verbs;

/**
 * What {@code ibv_query_device} reports.
 *
 * @param vendorId      0xFFFFFF, as rxe reports
 * @param maxQp         queue pairs
 * @param maxQpWr       work requests per queue
 * @param maxSge        SGEs per work request
 * @param maxCq         completion queues
 * @param maxCqe        entries per completion queue
 * @param maxMr         memory regions
 * @param maxMrSize     bytes per memory region
 * @param maxQpRdAtom   outstanding READs/atomics a QP may initiate
 * @param maxQpInitRdAtom outstanding READs/atomics a QP may answer
 * @param maxPd         protection domains
 * @param maxSrqWr      work requests per shared receive queue (the per-queue limit, as for QPs)
 * @param maxSrqSge     SGEs per shared receive queue work request
 * @param maxSrq        shared receive queues (XRC ones included)
 * @param maxAh         address handles
 */
public record DeviceAttributes(int vendorId, int maxQp, int maxQpWr, int maxSge, int maxCq, int maxCqe, int maxMr,
                               long maxMrSize, int maxQpRdAtom, int maxQpInitRdAtom, int maxPd, int maxSrqWr,
                               int maxSrqSge, int maxSrq, int maxAh) {
}
