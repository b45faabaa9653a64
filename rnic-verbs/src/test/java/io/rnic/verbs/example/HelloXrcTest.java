package io.rnic.verbs.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The user guide's XRC example compiles, runs, and is quoted verbatim. */
class HelloXrcTest {

    @Test
    void theXrcExampleRunsOverUdp() throws Exception {
        String wc = HelloXrc.run("127.0.82.6", "127.0.82.7");
        assertTrue(wc.contains("SUCCESS") && wc.contains("RECV byte_len=100") && wc.contains("0 completions"), wc);
    }

    @Test
    void theUserGuideQuotesTheExampleVerbatim() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "user-guide.md"));
        String code = Files.readString(Path.of("src", "test", "java", "io", "rnic", "verbs", "example", "HelloXrc.java"));
        assertTrue(doc.contains(code.substring(code.indexOf("import "))),
                "docs/user-guide.md must contain HelloXrc.java from its first import on");
    }
}
