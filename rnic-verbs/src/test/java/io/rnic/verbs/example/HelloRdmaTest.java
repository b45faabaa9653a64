package io.rnic.verbs.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The user guide's example compiles (it is this module's test code), runs, and is quoted verbatim. */
class HelloRdmaTest {

    @Test
    void theUserGuideExampleRunsOverUdp() throws Exception {
        String wc = HelloRdma.run("127.0.82.2", "127.0.82.3");
        assertTrue(wc.contains("SUCCESS") && wc.contains("RECV"), wc);
    }

    @Test
    void theUserGuideQuotesTheExampleVerbatim() throws Exception {
        Path guide = Path.of("..", "docs", "user-guide.md");
        Path source = Path.of("src", "test", "java", "io", "rnic", "verbs", "example", "HelloRdma.java");
        String doc = Files.readString(guide);
        String code = Files.readString(source);
        String body = code.substring(code.indexOf("import "));
        assertTrue(doc.contains(body), "docs/user-guide.md must contain HelloRdma.java from its first import on");
    }
}
