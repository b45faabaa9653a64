package io.rnic.bench.cli;

import io.rnic.bench.experiment.FabricRunConfig;
import io.rnic.bench.experiment.LossExperiment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The grammar of {@code rnic experiment fabric --compare}: a comma-separated list of entries;
 * each entry joins with {@code +} at most one item from each group, {@code gbn|reorder|sr} (loss
 * recovery), {@code pfc|nopfc} and {@code ecmp|spray} (path selection); a group an entry leaves
 * out takes the command's own option. The entry, stripped of surrounding blanks, is the
 * configuration's label, verbatim.
 */
final class FabricCompare {
    /** The items of each group, for messages. */
    static final String ITEMS = "gbn|reorder|sr, pfc|nopfc, ecmp|spray, nocc|dcqcn|dcqcn-mlx|timely|timely-patched";

    private FabricCompare() {
    }

    /**
     * The configurations {@code text} lists.
     *
     * @param mode  the loss recovery an entry without one takes
     * @param pfc   PFC for an entry without {@code pfc} or {@code nopfc}
     * @param spray spraying for an entry without {@code ecmp} or {@code spray}
     * @param cc    the congestion control of an entry that names none
     * @throws UsageException for an empty or repeated entry, an unknown item, or two items of one group
     */
    static List<FabricRunConfig> parse(String text, LossExperiment.Mode mode, boolean pfc, boolean spray,
                                       io.rnic.verbs.CongestionControlScheme cc) throws UsageException {
        List<FabricRunConfig> out = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String raw : text.split(",", -1)) {
            String entry = raw.strip();
            if (entry.isEmpty()) {
                throw new UsageException("--compare '" + text + "' has an empty entry: list entries such as gbn+pfc, sr+nopfc");
            }
            if (!seen.add(entry)) {
                throw new UsageException("--compare lists '" + entry + "' twice");
            }
            LossExperiment.Mode m = null;
            Boolean p = null;
            Boolean s = null;
            io.rnic.verbs.CongestionControlScheme k = null;
            for (String rawItem : entry.split("\\+", -1)) {
                String item = rawItem.strip().toLowerCase(Locale.ROOT);
                switch (item) {
                    case "gbn", "reorder", "sr" -> {
                        if (m != null) {
                            throw twice(entry, "loss recovery (gbn|reorder|sr)");
                        }
                        m = item.equals("gbn") ? LossExperiment.Mode.GBN
                                : item.equals("reorder") ? LossExperiment.Mode.REORDER : LossExperiment.Mode.SR;
                    }
                    case "pfc", "nopfc" -> {
                        if (p != null) {
                            throw twice(entry, "PFC (pfc|nopfc)");
                        }
                        p = item.equals("pfc");
                    }
                    case "ecmp", "spray" -> {
                        if (s != null) {
                            throw twice(entry, "path selection (ecmp|spray)");
                        }
                        s = item.equals("spray");
                    }
                    case "nocc", "dcqcn", "dcqcn-mlx", "timely", "timely-patched" -> {
                        if (k != null) {
                            throw twice(entry, "congestion control (nocc|dcqcn|dcqcn-mlx|timely|timely-patched)");
                        }
                        k = item.equals("nocc") ? io.rnic.verbs.CongestionControlScheme.NONE
                                : io.rnic.verbs.CongestionControlScheme.fromCliName(item);
                    }
                    default -> throw new UsageException("--compare entry '" + entry + "': unknown item '" + rawItem.strip()
                            + "'; each entry joins with + at most one item of each group: " + ITEMS);
                }
            }
            out.add(new FabricRunConfig(entry, (m == null ? mode : m).recovery(), p == null ? pfc : p, s == null ? spray : s,
                    k == null ? cc : k));
        }
        return out;
    }

    private static UsageException twice(String entry, String group) {
        return new UsageException("--compare entry '" + entry + "' names " + group + " twice; give one item of each group");
    }

    /**
     * The label of the configuration the options alone describe: {@code gbn+pfc}, with
     * {@code +spray} when spraying and {@code +dcqcn} (the scheme) with congestion control.
     */
    static String label(LossExperiment.Mode mode, boolean pfc, boolean spray, io.rnic.verbs.CongestionControlScheme cc) {
        return mode.label() + (pfc ? "+pfc" : "+nopfc") + (spray ? "+spray" : "")
                + (cc == io.rnic.verbs.CongestionControlScheme.NONE ? "" : "+" + cc.cliName());
    }
}
