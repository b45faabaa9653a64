package io.rnic.core.hca;

import java.util.function.ToIntFunction;

/**
 * The objects a device counts against a limit of its own, as {@code ibv_query_device} reports
 * them ({@code max_cq}, {@code max_pd}, {@code max_srq}, {@code max_ah}): an application, or a
 * peer that makes it create objects, cannot create more than the device says it has. QPs and
 * memory regions are counted where their numbers and keys are handed out (the QP number table and
 * the key table).
 */
public enum DeviceResource {
    /** Completion queues. */
    CQ("completion queues", "max_cq", HcaLimits::maxCq),
    /** Protection domains. */
    PD("protection domains", "max_pd", HcaLimits::maxPd),
    /** Shared receive queues, XRC ones included. */
    SRQ("shared receive queues", "max_srq", HcaLimits::maxSrq),
    /** Address handles. */
    AH("address handles", "max_ah", HcaLimits::maxAh);

    private final String plural;
    private final String attribute;
    private final ToIntFunction<HcaLimits> limit;

    DeviceResource(String plural, String attribute, ToIntFunction<HcaLimits> limit) {
        this.plural = plural;
        this.attribute = attribute;
        this.limit = limit;
    }

    /** How many of them a device with {@code limits} may have at once. */
    public int limit(HcaLimits limits) {
        return limit.applyAsInt(limits);
    }

    /** The name of the limit in {@code ibv_device_attr}. */
    public String attribute() {
        return attribute;
    }

    /** What they are called, in the plural. */
    public String plural() {
        return plural;
    }
}
