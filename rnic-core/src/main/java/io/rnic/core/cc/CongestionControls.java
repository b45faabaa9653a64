package io.rnic.core.cc;

import io.rnic.verbs.CongestionControlScheme;

/** The table from a configured scheme to a QP's instance of it, with each scheme's default parameters. */
public final class CongestionControls {
    private CongestionControls() {
    }

    /**
     * A new instance of {@code scheme} for one QP.
     *
     * @param scheme      the scheme
     * @param lineRateBps the line rate, the schemes' maximum (and starting) rate, positive
     * @return {@link CongestionControl#NONE} for NONE; a new DCQCN with the paper's parameters
     *         ({@link DcqcnParameters#paper()}); DCQCN as HPCC runs it
     *         ({@link DcqcnMlxParameters#hpccRunPy(long)}); TIMELY with HPCC's parameters
     *         ({@link TimelyParameters#hpcc(long)}) or patched ({@link TimelyParameters#patched(long)})
     * @throws IllegalArgumentException if the line rate is not positive
     */
    public static CongestionControl create(CongestionControlScheme scheme, long lineRateBps) {
        if (lineRateBps <= 0) {
            throw new IllegalArgumentException("the line rate " + lineRateBps + " bit/s must be positive");
        }
        return switch (scheme) {
            case NONE -> CongestionControl.NONE;
            case DCQCN -> new Dcqcn(DcqcnParameters.paper(), lineRateBps);
            case DCQCN_MLX -> new DcqcnMlx(DcqcnMlxParameters.hpccRunPy(lineRateBps), lineRateBps);
            case TIMELY -> new Timely(TimelyParameters.hpcc(lineRateBps), lineRateBps);
            case TIMELY_PATCHED -> new Timely(TimelyParameters.patched(lineRateBps), lineRateBps);
        };
    }
}
