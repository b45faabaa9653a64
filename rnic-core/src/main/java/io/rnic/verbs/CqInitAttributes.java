package io.rnic.verbs;

/**
 * What {@code ibv_create_cq_ex} needs ({@code struct ibv_cq_init_attr_ex}, the part rnic
 * supports): the capacity, the completion channel if any, and whether each completion carries
 * its timestamp ({@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}).
 *
 * <pre>{@code
 * CompletionQueue cq = device.createCq(CqInitAttributes.of(256).withCompletionTimestamps());
 * }</pre>
 *
 * @param cqe                  the capacity, 1 to the device's {@code max_cqe}
 * @param channel              where notifications armed by {@link CompletionQueue#requestNotify}
 *                             go, or {@code null} for none
 * @param completionTimestamps stamp every completion with the wire's clock when it is written,
 *                             read with {@link WorkCompletion#completionTimestampNanos()}; when
 *                             false that reads {@link WorkCompletion#NO_TIMESTAMP} and costs nothing
 */
public record CqInitAttributes(int cqe, CompletionChannel channel, boolean completionTimestamps) {
    /**
     * A CQ of {@code cqe} entries, with no completion channel and no timestamps (as
     * {@code ibv_create_cq}).
     *
     * @param cqe the capacity, 1 to the device's {@code max_cqe} (checked at creation)
     * @return the attributes
     */
    public static CqInitAttributes of(int cqe) {
        return new CqInitAttributes(cqe, null, false);
    }

    /**
     * The same attributes with notifications going to {@code channel}.
     *
     * @param channel the completion channel
     * @return new attributes
     * @throws NullPointerException if {@code channel} is null
     */
    public CqInitAttributes withChannel(CompletionChannel channel) {
        java.util.Objects.requireNonNull(channel, "channel");
        return new CqInitAttributes(cqe, channel, completionTimestamps);
    }

    /**
     * The same attributes with every completion stamped with the wire's clock
     * ({@code IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}): virtual nanoseconds on the simulated network.
     *
     * @return new attributes
     */
    public CqInitAttributes withCompletionTimestamps() {
        return new CqInitAttributes(cqe, channel, true);
    }
}
