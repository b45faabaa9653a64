package io.rnic.verbs.example;

import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.*;
import io.rnic.verbs.channel.CreditChannel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

public final class HelloChannel {
    public static List<String> run(long seed) {
        try (SimNetwork net = new SimNetwork(seed);
             RdmaDevice a = RdmaDevice.open(net.attach("10.0.0.1"));
             RdmaDevice b = RdmaDevice.open(net.attach("10.0.0.2"))) {
            // 8 messages in flight, 2 acknowledgements; B re-posts each receive 50 µs late
            CreditChannel.Config config = CreditChannel.Config.defaults().withCredits(8, 2).withRepostDelay(50_000);
            CreditChannel chA = CreditChannel.create(a.allocPd(), config);
            CreditChannel chB = CreditChannel.create(b.allocPd(), config);
            ConnectionInfo infoA = chA.localInfo(0x100), infoB = chB.localInfo(0x200);
            RcOptions noRnrRetry = RcOptions.defaults().withRetry(14, 7, 0); // an RNR NAK would be fatal
            chA.connect(infoA, infoB, noRnrRetry);
            chB.connect(infoB, infoA, noRnrRetry);

            List<String> got = new ArrayList<>();
            chB.onMessage(m -> got.add(StandardCharsets.UTF_8.decode(m).toString()));
            for (int i = 0; i < 100; i++) {                // 100 messages into 8 credits: 92 wait in the queue
                chA.offer(ByteBuffer.wrap(("message " + i).getBytes(StandardCharsets.UTF_8)));
            }
            while (got.size() < 100 || chA.messagesSent() < 100) { // poll; run virtual time when idle
                if (chA.poll() + chB.poll() == 0) {
                    net.scheduler().runNext();
                }
            }
            got.add(chA.stats().toString());
            return got;
        }
    }
}
