package io.rnic.verbs;

/**
 * The congestion control a QP's requester runs (its reaction point): how fast it may send, given
 * the congestion notifications (CNPs) and round-trip times it sees. Chosen per device in
 * {@link CongestionControlConfig} and overridable per QP in {@link QpInitAttributes}.
 */
public enum CongestionControlScheme {
    /** No congestion control: the requester sends as fast as its window and credits allow (the default). */
    NONE("none"),
    /**
     * DCQCN as its paper states it: Zhu et al., "Congestion Control for Large-Scale RDMA
     * Deployments", SIGCOMM 2015. A CNP cuts the rate by α/2; a timer and a byte counter raise it
     * again through fast recovery, additive and hyper increase. The paper's parameters.
     */
    DCQCN("dcqcn"),
    /**
     * DCQCN as HPCC's simulator implements it for ConnectX NICs ({@code rdma-hw.cc}: no byte
     * counter, a periodic rate-decrease check, α = 1 on the first CNP); Li et al., "HPCC: High
     * Precision Congestion Control", SIGCOMM 2019, with the parameters of its {@code run.py}.
     */
    DCQCN_MLX("dcqcn-mlx"),
    /**
     * TIMELY: Mittal et al., "TIMELY: RTT-based Congestion Control for the Datacenter", SIGCOMM
     * 2015; rate control on the gradient of the RTT the requester measures, with HPCC's
     * simulator's parameters.
     */
    TIMELY("timely"),
    /**
     * Patched TIMELY: Zhu et al., "ECN or Delay: Lessons Learnt from Analysis of DCQCN and
     * TIMELY", CoNEXT 2016, §4.3; TIMELY with a decrease that converges to a fair share.
     */
    TIMELY_PATCHED("timely-patched");

    private final String cliName;

    CongestionControlScheme(String cliName) {
        this.cliName = cliName;
    }

    /**
     * The name the command line uses ({@code none}, {@code dcqcn}, {@code dcqcn-mlx},
     * {@code timely}, {@code timely-patched}).
     *
     * @return the name
     */
    public String cliName() {
        return cliName;
    }

    /**
     * The scheme of a command-line name, case-insensitive.
     *
     * @param name one of {@code none}, {@code dcqcn}, {@code dcqcn-mlx}, {@code timely}, {@code timely-patched}
     * @return the scheme
     * @throws IllegalArgumentException if the name is none of them
     */
    public static CongestionControlScheme fromCliName(String name) {
        for (CongestionControlScheme s : values()) {
            if (s.cliName.equalsIgnoreCase(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("congestion control '" + name
                + "' is not one of none, dcqcn, dcqcn-mlx, timely, timely-patched");
    }
}
