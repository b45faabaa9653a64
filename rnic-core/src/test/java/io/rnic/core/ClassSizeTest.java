package io.rnic.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No class of the protocol core grows past 600 lines: a class that large has more than one job
 * (the responder, requester and UDP wire were split by responsibility when they reached 700 to
 * 1,070 lines), and the next maintainer should find each job in a file of its own.
 */
class ClassSizeTest {
    static final int LIMIT = 600;

    @Test
    void noCoreSourceFileIsLongerThanSixHundredLines() throws IOException {
        Path root = Path.of("src", "main", "java", "io", "rnic", "core");
        assertTrue(Files.isDirectory(root), root.toAbsolutePath() + " is not the core's source directory");
        List<String> tooLong;
        try (Stream<Path> files = Files.walk(root)) {
            tooLong = files.filter(f -> f.toString().endsWith(".java"))
                    .map(f -> {
                        try {
                            return f + ": " + Files.readAllLines(f).size();
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    })
                    .filter(s -> Integer.parseInt(s.substring(s.lastIndexOf(' ') + 1)) > LIMIT)
                    .collect(Collectors.toList());
        }
        assertTrue(tooLong.isEmpty(), "longer than " + LIMIT + " lines: " + tooLong);
    }
}
