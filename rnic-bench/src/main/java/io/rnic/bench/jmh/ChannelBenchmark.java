package io.rnic.bench.jmh;

import io.rnic.verbs.channel.ChannelCredits;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The credit channel's per-send accounting (issue 16's goal: ≤ 20 ns): one Send(data) through
 * both sides' counters, take the credits, complete locally, count it at the receiver, and the
 * acknowledgement when one is due (returned to the sender at once, as if it had crossed the wire).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ChannelBenchmark {
    private final ChannelCredits sender = ChannelCredits.withDefaultThresholds(128, 8);
    private final ChannelCredits receiver = ChannelCredits.withDefaultThresholds(128, 8);

    @Benchmark
    public int accountOneSend() {
        if (!sender.takeData()) {
            throw new IllegalStateException("no credit: " + sender);
        }
        sender.dataCompleted();
        receiver.dataReceived();
        if (receiver.ackDue(false)) {
            int imm = receiver.takeAck();
            sender.ackReceived(imm);
            receiver.ackCompleted();
            if (sender.ackDue(false)) {
                receiver.ackReceived(sender.takeAck());
                sender.ackCompleted();
            }
        }
        return sender.remoteData();
    }
}
