package io.rnic.transport.fabric;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The one topology grammar every command takes ({@code --topology}):
 * <ul>
 *   <li>{@code star:N}: N hosts on one switch ({@link Topology#star});</li>
 *   <li>{@code dumbbell:N}: N hosts on each of two switches joined by one link at the fabric
 *       rate ({@link Topology#dumbbell});</li>
 *   <li>{@code leafspine:L,S,H}: L leaves, S spines, H hosts per leaf ({@link Topology#leafSpine});</li>
 *   <li>{@code fattree:k=K}: the k-ary fat tree ({@link Topology#fatTree(int, long, long, long)});</li>
 *   <li>{@code file:PATH}: an HPCC topology file ({@link Topology#readHpcc(Path)}), whose rates
 *       and delays come from the file.</li>
 * </ul>
 * The kind is case-insensitive. Host links run at the host rate and switch-to-switch links at
 * the fabric rate, with one propagation delay on every link.
 */
public final class TopologySpec {
    /** The accepted forms, for help text and error messages. */
    public static final String FORMS = "star:N, dumbbell:N, leafspine:L,S,H, fattree:k=K or file:PATH";

    private TopologySpec() {
    }

    /**
     * The topology {@code spec} names.
     *
     * @param spec                one of {@link #FORMS}
     * @param hostBitsPerSecond   rate of host links
     * @param fabricBitsPerSecond rate of switch-to-switch links (a dumbbell's bottleneck)
     * @param delayNanos          one-way propagation delay of every link
     * @throws IllegalArgumentException if {@code spec} is not one of the forms or its numbers
     *         do not make a topology, saying which and listing the forms
     * @throws UncheckedIOException if a {@code file:} topology cannot be read
     */
    public static Topology parse(String spec, long hostBitsPerSecond, long fabricBitsPerSecond, long delayNanos) {
        if (spec == null || spec.isBlank()) {
            throw new IllegalArgumentException("no topology given: use " + FORMS);
        }
        String s = spec.strip();
        int colon = s.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("topology '" + spec + "' has no ':': use " + FORMS);
        }
        String kind = s.substring(0, colon).toLowerCase(Locale.ROOT);
        String args = s.substring(colon + 1).strip();
        switch (kind) {
            case "star":
                return Topology.star(count(spec, args, "N"), hostBitsPerSecond, delayNanos);
            case "dumbbell":
                return Topology.dumbbell(count(spec, args, "N"), hostBitsPerSecond, fabricBitsPerSecond, delayNanos);
            case "leafspine": {
                String[] p = args.split(",", -1);
                if (p.length != 3) {
                    throw new IllegalArgumentException("topology '" + spec + "': leafspine takes three numbers, leaves,spines,hostsPerLeaf (e.g. leafspine:4,2,8); the forms are " + FORMS);
                }
                return Topology.leafSpine(count(spec, p[0], "L"), count(spec, p[1], "S"), count(spec, p[2], "H"),
                        hostBitsPerSecond, fabricBitsPerSecond, delayNanos);
            }
            case "fattree": {
                String a = args.toLowerCase(Locale.ROOT);
                if (!a.startsWith("k=")) {
                    throw new IllegalArgumentException("topology '" + spec + "': fattree takes k=K with K even (e.g. fattree:k=4); the forms are " + FORMS);
                }
                return Topology.fatTree(count(spec, a.substring(2), "K"), hostBitsPerSecond, fabricBitsPerSecond, delayNanos);
            }
            case "file":
                if (args.isEmpty()) {
                    throw new IllegalArgumentException("topology '" + spec + "': file: needs a path; the forms are " + FORMS);
                }
                try {
                    return Topology.readHpcc(Path.of(args));
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read topology file " + args + ": " + e.getMessage(), e);
                }
            default:
                throw new IllegalArgumentException("unknown topology '" + spec + "': use " + FORMS);
        }
    }

    private static int count(String spec, String text, String name) {
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("topology '" + spec + "': " + name + " '" + text.strip() + "' is not a whole number; the forms are " + FORMS);
        }
    }
}
