package io.rnic.bench.cli;

import io.rnic.transport.udp.Gso;
import io.rnic.verbs.IcrcPolicy;
import io.rnic.verbs.QpType;

/**
 * The fixed lists of words the shared options take. Each constant's {@code toString()} is the word
 * on the command line ({@link Converters} reads it back), so the help, the completion script and
 * the error for a wrong word all say the same thing.
 */
final class Choices {
    private Choices() {
    }

    /** {@code --wire}: where the emulated HCAs' packets go. */
    enum WireKind {
        /** The simulated network, in virtual time, on the calling thread. */
        SIM("sim"),
        /** Real UDP sockets (RoCEv2 on port 4791 unless {@code --udp-port} says otherwise). */
        UDP("udp");

        private final String word;

        WireKind(String word) {
            this.word = word;
        }

        @Override
        public String toString() {
            return word;
        }
    }

    /** {@code --gso}: whether a UDP wire sends runs of packets as GSO super-datagrams. */
    enum GsoMode {
        ON("on", Gso.ON), OFF("off", Gso.OFF), AUTO("auto", Gso.AUTO);

        private final String word;
        private final Gso gso;

        GsoMode(String word, Gso gso) {
            this.word = word;
            this.gso = gso;
        }

        Gso gso() {
            return gso;
        }

        @Override
        public String toString() {
            return word;
        }
    }

    /** {@code --icrc}: what a UDP wire does with an ICRC it cannot verify. */
    enum IcrcMode {
        STRICT("strict", IcrcPolicy.STRICT), ACCEPT_UNVERIFIABLE("accept-unverifiable", IcrcPolicy.ACCEPT_UNVERIFIABLE);

        private final String word;
        private final IcrcPolicy policy;

        IcrcMode(String word, IcrcPolicy policy) {
            this.word = word;
            this.policy = policy;
        }

        IcrcPolicy policy() {
            return policy;
        }

        @Override
        public String toString() {
            return word;
        }
    }

    /** {@code --transport}: the QP type, by the name the IBTA gives the service. */
    enum QpKind {
        RC("rc", QpType.RC), UC("uc", QpType.UC), UD("ud", QpType.UD), XRC("xrc", QpType.XRC_SEND), RD("rd", QpType.RD);

        private final String word;
        private final QpType type;

        QpKind(String word, QpType type) {
            this.word = word;
            this.type = type;
        }

        /** The QP type; {@code xrc} is the initiator side, {@link QpType#XRC_SEND}. */
        QpType type() {
            return type;
        }

        @Override
        public String toString() {
            return word;
        }
    }
}
