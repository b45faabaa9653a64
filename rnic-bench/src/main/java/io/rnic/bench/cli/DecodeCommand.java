package io.rnic.bench.cli;

import io.rnic.transport.pcap.DecodedPacket;
import io.rnic.transport.pcap.PcapFormatException;
import io.rnic.transport.pcap.PcapFrame;
import io.rnic.transport.pcap.PcapReader;
import io.rnic.transport.pcap.RoceCaptureDecoder;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rnic decode FILE...}: prints one line per RoCEv2 packet of pcap / pcapng captures, as
 * the emulator's own decoder sees it, with the ICRC checked over the captured IP and UDP
 * headers, then a summary line. The exit status makes it usable as a check in scripts: 0 when
 * every packet decoded with a good ICRC, 1 when any was rejected or had a bad ICRC, 2 when a
 * file could not be read (or the command line is wrong).
 */
@Command(name = "decode", description = {"decode the RoCEv2 packets of pcap/pcapng captures and check their ICRCs", "",
    """
        Decodes the RoCEv2 packets (UDP destination port 4791) in pcap or pcapng captures with \
        the emulator's packet decoder and checks each ICRC over the IP and UDP headers as \
        captured. Prints one line per packet (frame number, addresses, opcode, BTH fields, \
        extension headers, payload length, ICRC verdict) and a summary. With several files, \
        each line starts with the file name. \
        Link types: Ethernet (with VLAN tags), Linux cooked (SLL, SLL2), raw IP, loopback.""", "",
    """
        A sender on an ordinary UDP socket cannot choose the IPv4 identification, so it \
        computes the ICRC over an assumed one; --ip-id N checks against that assumption \
        instead of the captured value."""},
        exitCodeList = {"0:every packet decoded with a good ICRC", "1:a packet was rejected or had a bad ICRC",
            "2:a file could not be read, or a usage error (an unknown, missing or malformed option or argument)",
            RnicCommand.INTERNAL_ERROR_LINE})
public final class DecodeCommand extends RnicCommand {
    @Option(names = "--port", paramLabel = "N",
            description = "also treat UDP destination port N as RoCEv2 (repeatable)")
    List<Integer> ports = new ArrayList<>();

    @Option(names = "--ip-id", paramLabel = "N", description = "check IPv4 ICRCs as if the IP ID were N (decimal or 0x hex)")
    Integer ipId;

    @Option(names = {"-q", "--quiet"}, description = "print only the summary line")
    boolean quiet;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "the captures (pcap or pcapng)")
    List<String> files;

    @Override
    protected int execute() throws UsageException {
        RoceCaptureDecoder decoder = new RoceCaptureDecoder();
        for (int port : ports) {
            decoder.addPort(range("--port", port, 0, 0xFFFF));
        }
        if (ipId != null) {
            decoder.assumeIpv4Identification(range("--ip-id", ipId, 0, 0xFFFF));
        }
        boolean prefix = files.size() > 1;

        boolean unreadable = false;
        for (String file : files) {
            String problem = decodeFile(file, decoder, quiet ? null : out, err, prefix ? file + ":" : "");
            if (problem != null) {
                err.println("rnic decode: " + file + ": " + problem);
                unreadable = true;
            }
        }
        out.println(decoder.summary());
        out.flush();
        if (unreadable) {
            return 2;
        }
        return decoder.allClean() ? 0 : 1;
    }

    /**
     * Decodes one file into {@code decoder}, printing lines to {@code out} unless it is null.
     * Returns why the file could not be read, or null. Damage after a good start is not a read
     * failure: the frames before it were decoded, so it is only a warning on {@code err}.
     */
    private static String decodeFile(String file, RoceCaptureDecoder decoder, PrintStream out, PrintStream err,
                                     String prefix) {
        Path path;
        try {
            path = Path.of(file);
        } catch (InvalidPathException e) {
            return "invalid path: " + e.getReason();
        }
        try (PcapReader reader = PcapReader.open(path)) {
            for (PcapFrame f = reader.next(); f != null; f = reader.next()) {
                DecodedPacket p = decoder.decode(f).orElse(null);
                if (p != null && out != null) {
                    out.print(prefix);
                    out.println(p.line());
                }
            }
            if (reader.problem() != null) {
                err.println("rnic decode: warning: " + file + ": " + reader.problem() + "; nothing after it was read");
            }
            return null;
        } catch (NoSuchFileException e) {
            return "no such file";
        } catch (AccessDeniedException e) {
            return "permission denied";
        } catch (PcapFormatException e) {
            return e.getMessage();
        } catch (IOException e) {
            return e.getMessage() != null ? e.getMessage() : e.toString();
        }
    }
}
