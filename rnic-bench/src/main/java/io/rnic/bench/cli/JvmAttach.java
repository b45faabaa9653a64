package io.rnic.bench.cli;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import javax.management.remote.JMXServiceURL;

/**
 * Reaches a local JVM's platform MBean server through the JDK's attach API ({@code jdk.attach}):
 * attach to the process, start its local management agent (a JMX connector bound to the loopback
 * interface, the one {@code jcmd PID ManagementAgent.start_local} starts) and return its address.
 * Attach works between processes of the same user; a JVM started with
 * {@code -XX:+DisableAttachMechanism} refuses it.
 */
final class JvmAttach {
    private JvmAttach() {
    }

    /**
     * The JMX address of the local JVM {@code pid}'s management agent, started if it was not.
     *
     * @throws IOException if the JVM cannot be attached to (no such process, another user's, attach
     *     disabled) or refuses to start its agent
     */
    static JMXServiceURL localAgent(long pid) throws IOException {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(Long.toString(pid));
        } catch (AttachNotSupportedException e) {
            throw new IOException("cannot attach to process " + pid + ": " + e.getMessage(), e);
        }
        try {
            return new JMXServiceURL(vm.startLocalManagementAgent());
        } finally {
            vm.detach();
        }
    }
}
