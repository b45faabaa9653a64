package io.rnic.verbs.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rnic.core.packet.PacketDecoder;
import io.rnic.core.packet.RocePacket;
import org.junit.jupiter.api.AfterAll;

/**
 * Coverage-guided fuzzing with Jazzer. Under {@code mvn test} each target runs its stored inputs
 * only (regression mode). {@code JAZZER_FUZZ=1} fuzzes one target for the documented long run:
 * 10^7 executions or 45 minutes, whichever comes first (Jazzer 0.24 takes both limits from the
 * annotation only; docs/reliability.md has the command and the figures):
 *
 * <pre>
 * JAZZER_FUZZ=1 mvn -B -o -pl rnic-verbs test-compile surefire:test@fuzz -Dtest='ResponderFuzzTest#responder'
 * </pre>
 */
class ResponderFuzzTest {
    private static ResponderHarness harness;
    private static final PacketDecoder DECODER = new PacketDecoder();
    private static final RocePacket PACKET = new RocePacket();

    /** Any packet at a responder: nothing escapes the event loop, no canary byte changes, no region is revoked. */
    @FuzzTest(maxDuration = "45m", maxExecutions = 10_000_000)
    void responder(FuzzedDataProvider data) {
        if (harness == null) {
            harness = new ResponderHarness();
        }
        harness.exercise(new ResponderHarness.Choices() {
            @Override
            public int intIn(int min, int max) {
                return data.consumeInt(min, max);
            }

            @Override
            public long anyLong() {
                return data.consumeLong();
            }

            @Override
            public boolean bool() {
                return data.consumeBoolean();
            }

            @Override
            public byte[] bytes(int maxLength) {
                return data.consumeBytes(maxLength);
            }
        });
    }

    /** The decoder is total: any bytes, any window of them, a result and never an exception. */
    @FuzzTest(maxDuration = "45m", maxExecutions = 10_000_000)
    void decoderIsTotal(byte[] bytes) {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        for (int off = 0; off < Math.min(bytes.length, 8); off++) {
            DECODER.decode(buf, off, bytes.length - off, PACKET);
        }
    }

    @AfterAll
    static void closeHarness() {
        if (harness != null) {
            harness.close();
            harness = null;
        }
    }
}
