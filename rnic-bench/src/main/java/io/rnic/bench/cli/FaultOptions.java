package io.rnic.bench.cli;

import io.rnic.bench.demo.FaultSpec;

/** The fault options shared by {@code demo} and {@code soak}. */
final class FaultOptions {
    private FaultOptions() {
    }

    static FaultSpec parse(ParsedArgs args, boolean udp) throws UsageException {
        // Reordering needs an extra delay longer than the path: 20 µs on the simulated link,
        // 200 µs between sockets.
        return new FaultSpec(probability(args, "--loss"), probability(args, "--reorder"), probability(args, "--dup"),
                probability(args, "--corrupt"), udp ? 200_000 : 20_000);
    }

    private static double probability(ParsedArgs args, String name) throws UsageException {
        if (!args.has(name)) {
            return 0;
        }
        try {
            double p = Double.parseDouble(args.value(name));
            if (p >= 0 && p <= 1) {
                return p;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(name + " must be a probability between 0 and 1, not " + args.value(name));
    }
}
