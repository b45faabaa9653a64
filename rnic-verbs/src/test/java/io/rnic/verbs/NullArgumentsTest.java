package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.transport.sim.SimNetwork;
import io.rnic.verbs.channel.ChannelCredits;
import io.rnic.verbs.cm.CmEventChannel;
import io.rnic.verbs.cm.CmId;
import io.rnic.verbs.cm.PortSpace;
import io.rnic.verbs.testing.RcPair;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Every public method and constructor of the API, called with {@code null} for one reference
 * parameter at a time (every other argument a valid value), throws a {@link NullPointerException}
 * whose message names that parameter, as {@code Objects.requireNonNull(x, "x")} does, and does
 * so before it changes anything. The API packages: {@code io.rnic.verbs}, {@code io.rnic.verbs.cm},
 * {@code io.rnic.verbs.channel}, {@code io.rnic.verbs.testing}.
 *
 * <p>The parameters whose Javadoc says {@code null} means something are listed in
 * {@link #NULLABLE}, each with that meaning; they are not walked. Each call gets fresh objects on
 * a simulated network of its own, so one call cannot disturb the next.
 */
class NullArgumentsTest {
    /** Class#method(parameter) that accept null, and what null means there. */
    static final Map<String, String> NULLABLE = Map.ofEntries(
            Map.entry("DeviceConfig#DeviceConfig(keyRandom)", "the wire's seed, or a secure source"),
            Map.entry("QueuePair#bindMw(mr)", "no region: a zero-length bind unbinds a type 1 window"),
            Map.entry("CmId#context(c)", "clears the application's object"),
            Map.entry("CmId#connect(param)", "rdma_cm's defaults"),
            Map.entry("CmId#accept(param)", "rdma_cm's defaults"),
            Map.entry("CmId#reject(privateData)", "no private data"),
            Map.entry("CmId#resolveAddr(source)", "any local device"),
            Map.entry("CmEventChannel#createId(context)", "no application object"),
            Map.entry("ConnParam#ConnParam(privateData)", "no private data"),
            Map.entry("UdParam#UdParam(ah)", "no address handle (a rejected SIDR)"),
            Map.entry("UdParam#UdParam(privateData)", "no private data"),
            Map.entry("CmEvent#CmEvent(id)", "an event of no ID (a test's)"),
            Map.entry("CmEvent#CmEvent(listenId)", "not a CONNECT_REQUEST"),
            Map.entry("CmEvent#CmEvent(param)", "no connection parameters"),
            Map.entry("CmEvent#CmEvent(ud)", "not a UD ESTABLISHED"),
            Map.entry("CompletionChannel#CompletionChannel(handler)", "no handler: completion events are polled"),
            Map.entry("RdmaDevice#createCq(channel)", "no completion channel"),
            Map.entry("CqInitAttributes#CqInitAttributes(channel)", "no completion channel"),
            Map.entry("MemoryRegion#reregister(pd)", "not used without REREG_CHANGE_PD (the region keeps its PD)"),
            Map.entry("MemoryRegion#reregister(buffer)",
                    "not used without REREG_CHANGE_TRANSLATION (the region keeps its memory)"),
            Map.entry("SendWorkRequest#ud(ah)", "clears the datagram destination of a reused request"),
            Map.entry("QpInitAttributes#QpInitAttributes(srq)", "no shared receive queue"),
            Map.entry("QpInitAttributes#withSrq(s)", "no shared receive queue"),
            Map.entry("QpInitAttributes#QpInitAttributes(congestionControl)", "the device's congestion control"),
            Map.entry("QpInitAttributes#withCongestionControl(scheme)", "the device's congestion control"),
            Map.entry("ConnParam#withPrivateData(data)", "no private data"),
            Map.entry("Connections#local(mr)", "no region to offer the peer: address and R_Key 0"),
            Map.entry("Connections#connectPair(mrA)", "no region to offer the peer, as Connections.local"),
            Map.entry("Connections#connectPair(mrB)", "no region to offer the peer, as Connections.local"),
            Map.entry("AsyncEvent#AsyncEvent(detail)", "an event with nothing more to say"));

    private static final List<String> API_CLASSES = List.of(
            "AddressHandle", "AddressVector", "CompletionChannel", "CompletionQueue", "ConnectionInfo", "CqInitAttributes", "Connections",
            "Counters", "DeviceAttributes", "DeviceConfig", "EeContext", "FastMemoryRegion", "Gid", "MemoryRegion",
            "MemoryWindow", "PortAttributes", "ProtectionDomain", "QpAttributes", "QpCaps", "QpInitAttributes", "QueuePair",
            "RcOptions", "RdmaDevice", "RecvWorkRequest", "ReliableDatagramDomain", "SendWorkRequest", "SharedReceiveQueue",
            "SrqAttributes", "WorkCompletion", "XrcDomain", "AsyncEvent", "ResourceTable", "DeviceResources",
            "cm.CmEventChannel", "cm.CmId", "cm.CmEvent", "cm.ConnParam", "cm.UdParam", "cm.CmCounters",
            "channel.CreditChannel", "channel.ChannelCredits", "testing.RcPair");

    /** Fresh objects for one call: a device pair on a simulated network, and one of everything. */
    static final class World implements AutoCloseable {
        final SimNetwork net = new SimNetwork(1);
        final RdmaDevice a = RdmaDevice.open(net.attach("10.0.0.1"));
        final RdmaDevice b = RdmaDevice.open(net.attach("10.0.0.2"));
        final ProtectionDomain pd = a.allocPd();
        final CompletionQueue cq = a.createCq(16);
        final QueuePair qp = pd.createQp(QpInitAttributes.rc(cq, cq));
        final MemoryRegion mr = pd.registerMemory(ByteBuffer.allocateDirect(4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.MW_BIND);
        final Map<Class<?>, Supplier<Object>> samples = new java.util.HashMap<>();

        World() {
            samples.put(SimNetwork.class, () -> net);
            samples.put(RdmaDevice.class, () -> a);
            samples.put(ProtectionDomain.class, () -> pd);
            samples.put(CompletionQueue.class, () -> cq);
            samples.put(QueuePair.class, () -> qp);
            samples.put(MemoryRegion.class, () -> mr);
            samples.put(MemoryWindow.class, () -> pd.allocMw(2));
            samples.put(FastMemoryRegion.class, () -> pd.allocMr(4096));
            samples.put(SharedReceiveQueue.class, () -> pd.createSrq(16, 1, 0));
            samples.put(AddressHandle.class, () -> pd.createAddressHandle(AddressVector.of(b.gid().toInetAddress())));
            samples.put(XrcDomain.class, () -> a.openXrcd("xrcd"));
            samples.put(ReliableDatagramDomain.class, () -> a.allocRdd());
            samples.put(EeContext.class, () -> a.allocRdd().createEeContext());
            samples.put(CompletionChannel.class, () -> new CompletionChannel(q -> { }));
            samples.put(AddressVector.class, () -> AddressVector.of(b.gid().toInetAddress()));
            samples.put(QpInitAttributes.class, () -> QpInitAttributes.rc(cq, cq));
            samples.put(CqInitAttributes.class, () -> CqInitAttributes.of(16));
            samples.put(QpAttributes.class, QpAttributes::new);
            samples.put(QpCaps.class, () -> new QpCaps(16, 16, 1, 1, 0));
            samples.put(SrqAttributes.class, () -> new SrqAttributes(16, 1, 0));
            samples.put(SendWorkRequest.class, SendWorkRequest::new);
            samples.put(RecvWorkRequest.class, RecvWorkRequest::new);
            samples.put(WorkCompletion.class, WorkCompletion::new);
            samples.put(RcOptions.class, RcOptions::defaults);
            samples.put(DeviceConfig.class, DeviceConfig::defaults);
            samples.put(Gid.class, () -> b.gid());
            samples.put(ConnectionInfo.class, () -> Connections.local(qp, 1, mr));
            samples.put(ByteBuffer.class, () -> ByteBuffer.allocateDirect(4096));
            samples.put(byte[].class, () -> new byte[8]);
            samples.put(String.class, () -> "10.0.0.3");
            samples.put(Object.class, Object::new);
            samples.put(InetAddress.class, () -> b.gid().toInetAddress());
            samples.put(InetSocketAddress.class, () -> new InetSocketAddress(b.gid().toInetAddress(), 4791));
            samples.put(io.rnic.core.wire.Wire.class, () -> net.attach("10.0.0.9"));
            samples.put(CmEventChannel.class, () -> CmEventChannel.create(a));
            samples.put(CmId.class, () -> CmEventChannel.create(a).createId(PortSpace.TCP, null));
            samples.put(io.rnic.verbs.cm.ConnParam.class, io.rnic.verbs.cm.ConnParam::defaults);
            samples.put(RcPair.class, () -> RcPair.simulated(1));
            samples.put(ChannelCredits.class, () -> new ChannelCredits(4, 4, 2, 2));
            samples.put(ResourceTable.class, () -> new ResourceTable("qp", List.of("lqpn"), List.of(List.of(17))));
            samples.put(DeviceResources.class, () -> new DeviceResources("10.0.0.1", List.of()));
            samples.put(List.class, () -> List.of(new ResourceTable("qp", List.of("lqpn"), List.of(List.of(17)))));
            samples.put(Supplier.class, () -> (Supplier<ResourceTable>) () -> new ResourceTable("x", List.of(),
                    List.of()));
        }

        Object sample(Class<?> t) {
            if (t.isPrimitive()) {
                // 1, boxed as the type's own: a wait of 0 would be a wait for ever (Connections.serve's timeout)
                Object one = Array.newInstance(t, 1);
                if (t == boolean.class) {
                    return false;
                }
                if (t == char.class) {
                    return 'x';
                }
                Array.set(one, 0, t == int.class ? (Object) 1 : t == long.class ? (Object) 1L : t == double.class
                        ? (Object) 1.0 : t == float.class ? (Object) 1f : t == byte.class ? (Object) (byte) 1 : (Object) (short) 1);
                return Array.get(one, 0);
            }
            Supplier<Object> s = samples.get(t);
            if (s != null) {
                return s.get();
            }
            if (t.isEnum()) {
                return t.getEnumConstants()[0];
            }
            if (t.isArray()) {
                Object arr = Array.newInstance(t.getComponentType(), 1);
                Object e = sample(t.getComponentType());
                if (e != null) {
                    Array.set(arr, 0, e);
                }
                return arr;
            }
            if (t.isInterface()) { // a callback: does nothing, answers defaults
                return Proxy.newProxyInstance(t.getClassLoader(), new Class<?>[] {t}, (p, m, args) -> {
                    Class<?> r = m.getReturnType();
                    return r == void.class ? null : r.isPrimitive() ? sample(r) : null;
                });
            }
            return null;
        }

        @Override
        public void close() {
            net.close();
        }
    }

    private static Class<?> api(String name) throws ClassNotFoundException {
        return Class.forName("io.rnic.verbs." + name);
    }

    private static String key(Executable e, Parameter p) {
        String name = e instanceof Constructor ? e.getDeclaringClass().getSimpleName() : e.getName();
        return e.getDeclaringClass().getSimpleName() + "#" + name + "(" + p.getName() + ")";
    }

    @Test
    void aNullArgumentThrowsNullPointerExceptionNamingItsParameter() throws Exception {
        List<String> failures = new ArrayList<>();
        Set<String> notWalked = new TreeSet<>();
        int walked = 0;
        for (String cn : API_CLASSES) {
            Class<?> c = api(cn);
            List<Executable> all = new ArrayList<>(List.of(c.getConstructors()));
            for (Method m : c.getMethods()) {
                if (m.getDeclaringClass() == c && !m.isSynthetic()) {
                    all.add(m);
                }
            }
            for (Executable e : all) {
                Parameter[] ps = e.getParameters();
                for (int i = 0; i < ps.length; i++) {
                    if (ps[i].getType().isPrimitive() || e.getName().equals("equals")
                            || ps[i].getType().getName().startsWith("io.rnic.core.")) {
                        continue; // equals(null) is false by contract; engine types are not the API's
                    }
                    assertTrue(ps[i].isNamePresent(), "compile with -parameters: " + e);
                    String key = key(e, ps[i]);
                    if (NULLABLE.containsKey(key)) {
                        continue;
                    }
                    String outcome = call(e, i, notWalked);
                    if (outcome == null) {
                        continue;
                    }
                    walked++;
                    if (!outcome.isEmpty()) {
                        failures.add(key + ": " + outcome);
                    }
                }
            }
        }
        System.out.println("[NullArgumentsTest] walked " + walked + " (method, parameter) pairs; not walked (no sample "
                + "argument): " + notWalked);
        assertTrue(walked > 100, "walked " + walked);
        assertEquals(List.of(), failures, failures.size() + " parameters do not say they are null");
    }

    /** "" if the call threw an NPE naming parameter {@code i}, the problem otherwise, or null if it could not be made. */
    private static String call(Executable e, int i, Set<String> notWalked) throws Exception {
        try (World w = new World()) {
            Parameter[] ps = e.getParameters();
            Object[] args = new Object[ps.length];
            for (int k = 0; k < ps.length; k++) {
                if (k != i) {
                    args[k] = w.sample(ps[k].getType());
                    if (args[k] == null || !ps[k].getType().isPrimitive() && !ps[k].getType().isInstance(args[k])) {
                        notWalked.add(e.getDeclaringClass().getSimpleName() + "#" + e.getName() + ": no "
                                + ps[k].getType().getSimpleName());
                        return null;
                    }
                }
            }
            Object target = null;
            if (e instanceof Method m && !Modifier.isStatic(m.getModifiers())) {
                target = w.sample(m.getDeclaringClass());
                if (target == null) {
                    notWalked.add(e.getDeclaringClass().getSimpleName() + ": no instance");
                    return null;
                }
            }
            try {
                if (e instanceof Method m) {
                    m.invoke(target, args);
                } else {
                    ((Constructor<?>) e).newInstance(args);
                }
                return "accepted null";
            } catch (InvocationTargetException x) {
                Throwable t = x.getCause();
                if (!(t instanceof NullPointerException)) {
                    return "threw " + t.getClass().getSimpleName() + ": " + t.getMessage();
                }
                String name = ps[i].getName();
                return t.getMessage() != null && t.getMessage().contains(name) ? ""
                        : "NullPointerException without the parameter's name: " + t.getMessage();
            }
        }
    }
}
