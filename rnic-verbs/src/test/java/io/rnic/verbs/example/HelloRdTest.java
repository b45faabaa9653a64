package io.rnic.verbs.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The user guide's RD example compiles, runs, and is quoted verbatim. */
class HelloRdTest {

    @Test
    void theRdExampleRunsOverUdp() throws Exception {
        String wc = HelloRd.run("127.0.82.8", "127.0.82.9");
        assertTrue(wc.lines().count() == 2 && wc.lines().allMatch(l -> l.contains("SUCCESS") && l.contains("byte_len=100")),
                wc);
    }

    @Test
    void theUserGuideQuotesTheExampleVerbatim() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "user-guide.md"));
        String code = Files.readString(Path.of("src", "test", "java", "io", "rnic", "verbs", "example", "HelloRd.java"));
        assertTrue(doc.contains(code.substring(code.indexOf("import "))),
                "docs/user-guide.md must contain HelloRd.java from its first import on");
    }
}
