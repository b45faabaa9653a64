package io.rnic.bench.cli;

import io.rnic.verbs.RdmaDeviceMXBean;
import io.rnic.verbs.ResourceTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rnic res}: another JVM's emulated devices seen through their MXBeans
 * ({@code io.rnic:type=RdmaDevice,...}), as {@code rdma resource} shows a host's RDMA devices.
 */
@Command(name = "res", description = {"show the resources of the rnic devices of a running JVM, as 'rdma resource'", "",
    "The one subcommand is 'show': 'rnic res show --help'."},
        subcommands = {ResCommand.Show.class},
        exitCodeList = {"0:done", RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
public final class ResCommand extends RnicCommand {
    /** Without a subcommand: the list of them on standard error, exit 2. */
    @Override
    protected int execute() {
        err.print(spec.commandLine().getUsageMessage());
        return Rnic.EXIT_USAGE;
    }

    /** The kinds {@code show} takes, as {@code rdma resource show} names them, and rnic's own. */
    static final List<String> KINDS = List.of("qp", "cq", "mr", "mw", "srq", "pd", "cm_id", "ah", "xrcd", "eec");

    private static final Pattern INTEGER = Pattern.compile("-?[0-9]{1,18}");

    /** {@code rnic res show}: the tables of every device of the JVM, or one kind, filtered. */
    @Command(name = "show", description = {"print the devices' objects: QPs, CQs, MRs, MWs, SRQs, PDs, CM IDs", "",
        """
            Reads the rnic devices of another JVM through JMX and prints what 'rdma resource show' \
            prints for a host's RDMA devices. Without a KIND: one line per device with its object \
            count per kind. With a KIND: one table of that kind's objects on every device, a 'dev' \
            column first, each row taken at one instant of its device's protocol. A QP row shows its \
            number (lqpn), type, state by its verbs name (RTS, ERR, ...), the peer QP (rqpn), the live \
            PSNs, the path MTU, the send and receive queues' use, PSNs in flight, READs/atomics \
            outstanding, retries left and its CQs.""", "",
        """
            Filters are COLUMN VALUE pairs after the KIND, as rdma's: 'rnic res show qp lqpn 17 --jvm \
            4242', 'rnic res show qp state ERR --jvm 4242'. Numbers compare by value (0x11 is 17) and \
            may be ranges and lists ('lqpn 17-19,23'); words compare ignoring case.""", "",
        """
            --jvm PID attaches to a local JVM of the same user through the JDK's attach API and starts \
            its local management agent; --jmx HOST:PORT connects to a JVM started with \
            -Dcom.sun.management.jmxremote.port=PORT."""},
            exitCodeList = {"0:printed", "1:the JVM could not be reached, or has no rnic device",
                RnicCommand.USAGE_ERROR_LINE, RnicCommand.INTERNAL_ERROR_LINE})
    public static final class Show extends RnicCommand {
        @Parameters(paramLabel = "[KIND] [COLUMN VALUE]...", arity = "0..*",
                description = "qp, cq, mr, mw, srq, pd, cm_id, ah, xrcd or eec; then filters, e.g. 'lqpn 17'")
        List<String> words = new ArrayList<>();

        @Option(names = "--json", description = "print JSON instead of a table")
        boolean json;

        @ArgGroup(exclusive = true, multiplicity = "1")
        Target target;

        /** Where the JVM is: one of the two. */
        static final class Target {
            @Option(names = "--jvm", paramLabel = "PID", required = true, description = "a local JVM's process id")
            Long pid;

            @Option(names = "--jmx", paramLabel = "HOST:PORT", required = true,
                    description = "a JVM's JMX connector (com.sun.management.jmxremote.port)")
            String jmx;
        }

        @Override
        protected int execute() throws Exception {
            String kind = !words.isEmpty() && KINDS.contains(words.get(0)) ? words.get(0) : null;
            List<String> filters = kind == null ? words : words.subList(1, words.size());
            if (kind == null && !filters.isEmpty()) {
                throw new UsageException("'" + filters.get(0) + "' is not a kind of object; the kinds are "
                        + String.join(", ", KINDS) + " (filters follow a kind)");
            }
            if (filters.size() % 2 != 0) {
                throw new UsageException("filters are COLUMN VALUE pairs; '" + filters.get(filters.size() - 1)
                        + "' has no value");
            }
            JMXServiceURL url;
            try {
                url = target.pid != null ? JvmAttach.localAgent(target.pid) : remote(target.jmx);
            } catch (IOException e) {
                err.println("rnic res show: cannot reach the JVM: " + e.getMessage());
                return 1;
            }
            try (JMXConnector c = JMXConnectorFactory.connect(url)) {
                List<RdmaDeviceMXBean> devices = devices(c.getMBeanServerConnection());
                if (devices.isEmpty()) {
                    err.println("rnic res show: the JVM has no open rnic device");
                    return 1;
                }
                if (kind == null) {
                    summaries(devices);
                } else {
                    ResourceTable t = table(kind, devices);
                    for (int i = 0; i < filters.size(); i += 2) {
                        try {
                            t = t.filter(filters.get(i), filters.get(i + 1));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException(e.getMessage());
                        }
                    }
                    out.print(json ? t.toJson() + "\n" : t.toString());
                }
            } catch (IOException e) {
                err.println("rnic res show: lost the JMX connection: " + e.getMessage());
                return 1;
            }
            return 0;
        }

        private static JMXServiceURL remote(String hostPort) throws UsageException, IOException {
            int colon = hostPort.lastIndexOf(':');
            if (colon <= 0 || colon == hostPort.length() - 1) {
                throw new UsageException("--jmx: '" + hostPort + "' is not HOST:PORT");
            }
            int port;
            try {
                port = range("--jmx port", Converters.parseInt(hostPort.substring(colon + 1)), 1, 65535);
            } catch (picocli.CommandLine.TypeConversionException e) {
                throw new UsageException("--jmx: " + e.getMessage());
            }
            return new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + hostPort.substring(0, colon) + ":" + port
                    + "/jmxrmi");
        }

        /** The JVM's devices, in the order they were opened. */
        private static List<RdmaDeviceMXBean> devices(MBeanServerConnection c) throws IOException,
                MalformedObjectNameException {
            Set<ObjectName> names = c.queryNames(new ObjectName("io.rnic:type=RdmaDevice,*"), null);
            List<ObjectName> sorted = new ArrayList<>(names);
            sorted.sort(Comparator.comparingLong(n -> Long.parseLong(n.getKeyProperty("id"))));
            List<RdmaDeviceMXBean> devices = new ArrayList<>();
            for (ObjectName n : sorted) {
                devices.add(JMX.newMXBeanProxy(c, n, RdmaDeviceMXBean.class));
            }
            return devices;
        }

        private void summaries(List<RdmaDeviceMXBean> devices) {
            if (!json) {
                for (RdmaDeviceMXBean d : devices) {
                    out.println(d.getId() + ": " + d.getResourceSummary());
                }
                return;
            }
            StringBuilder b = new StringBuilder("[");
            for (RdmaDeviceMXBean d : devices) {
                b.append(b.length() > 1 ? "," : "").append(d.getResourcesJson());
            }
            out.println(b.append(']'));
        }

        /** The rows of {@code kind} on every device that has such a table, a {@code dev} column first. */
        private static ResourceTable table(String kind, List<RdmaDeviceMXBean> devices) {
            List<String> columns = null;
            List<List<Object>> rows = new ArrayList<>();
            for (RdmaDeviceMXBean d : devices) {
                if (!List.of(d.getResourceKinds()).contains(kind)) {
                    continue; // cm_id: a device no connection manager has used
                }
                String[][] t = d.resourceTable(kind);
                if (columns == null) {
                    columns = new ArrayList<>(List.of("dev"));
                    columns.addAll(List.of(t[0]));
                }
                for (int r = 1; r < t.length; r++) {
                    List<Object> row = new ArrayList<>(t[r].length + 1);
                    row.add(d.getAddress());
                    for (String v : t[r]) {
                        row.add(typed(v));
                    }
                    rows.add(row);
                }
            }
            return new ResourceTable(kind, columns != null ? columns : List.of("dev"), rows);
        }

        /** A value as the device's table held it: the MXBean sends text, numbers in decimal. */
        private static Object typed(String v) {
            if (INTEGER.matcher(v).matches()) {
                return Long.parseLong(v);
            }
            return v.equals("true") || v.equals("false") ? (Object) Boolean.parseBoolean(v) : v;
        }
    }
}
