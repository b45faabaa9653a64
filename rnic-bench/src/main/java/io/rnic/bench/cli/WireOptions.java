package io.rnic.bench.cli;

import io.rnic.transport.udp.Gso;
import io.rnic.verbs.IcrcPolicy;

/** The options every command that opens a UDP wire reads the same way: {@code --icrc} and {@code --gso}. */
final class WireOptions {
    private WireOptions() {
    }

    /** {@code --icrc strict|accept-unverifiable}, strict unless given. */
    static IcrcPolicy icrc(ParsedArgs args) throws UsageException {
        String policy = args.has("--icrc") ? args.value("--icrc") : "strict";
        return switch (policy) {
            case "strict" -> IcrcPolicy.STRICT;
            case "accept-unverifiable" -> IcrcPolicy.ACCEPT_UNVERIFIABLE;
            default -> throw new UsageException("--icrc must be strict or accept-unverifiable, not " + policy);
        };
    }

    /** {@code --gso on|off|auto}, {@code byDefault} unless given. */
    static Gso gso(ParsedArgs args, Gso byDefault) throws UsageException {
        if (!args.has("--gso")) {
            return byDefault;
        }
        return switch (args.value("--gso")) {
            case "on" -> Gso.ON;
            case "off" -> Gso.OFF;
            case "auto" -> Gso.AUTO;
            default -> throw new UsageException("--gso must be on, off or auto, not " + args.value("--gso"));
        };
    }
}
