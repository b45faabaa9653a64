package io.rnic.verbs.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The user guide's credit-channel example compiles, runs, and is quoted verbatim. */
class HelloChannelTest {

    @Test
    void theChannelExampleDeliversEveryMessageInOrderPastASlowReceiver() {
        List<String> got = HelloChannel.run(11);
        for (int i = 0; i < 100; i++) {
            assertEquals("message " + i, got.get(i));
        }
        String stats = got.get(100);
        assertTrue(stats.contains("sent=100") && !stats.contains("stalls=0"), stats);
    }

    @Test
    void theUserGuideQuotesTheExampleVerbatim() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "user-guide.md"));
        String code = Files.readString(Path.of("src", "test", "java", "io", "rnic", "verbs", "example", "HelloChannel.java"));
        assertTrue(doc.contains(code.substring(code.indexOf("import "))),
                "docs/user-guide.md must contain HelloChannel.java from its first import on");
    }
}
