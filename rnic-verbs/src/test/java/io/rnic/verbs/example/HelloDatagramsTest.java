package io.rnic.verbs.example;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The user guide's datagram example compiles, runs, and is quoted verbatim. */
class HelloDatagramsTest {

    @Test
    void theDatagramExampleRunsOverUdp() throws Exception {
        String wc = HelloDatagrams.run("127.0.82.4", "127.0.82.5");
        assertTrue(wc.contains("SUCCESS") && wc.contains("RECV byte_len=140") && wc.contains("src_qp=0x11"), wc);
    }

    @Test
    void theUserGuideQuotesTheExampleVerbatim() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "user-guide.md"));
        String code = Files.readString(Path.of("src", "test", "java", "io", "rnic", "verbs", "example", "HelloDatagrams.java"));
        assertTrue(doc.contains(code.substring(code.indexOf("import "))),
                "docs/user-guide.md must contain HelloDatagrams.java from its first import on");
    }
}
