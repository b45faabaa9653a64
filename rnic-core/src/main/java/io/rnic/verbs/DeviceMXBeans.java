package io.rnic.verbs;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.JMException;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device's MXBean ({@link RdmaDeviceMXBean}) and its registration in the platform MBean
 * server. A failure to register (a security manager, a server refusing) costs the application
 * its device's JMX view, never the device: it is logged and the device opens without one.
 *
 * <p>The bean holds its device weakly: the MBean server keeps what is registered for ever, and a
 * device an application drops without closing (a simulated network left to the garbage
 * collector, as tests do) must not stay in memory because of its JMX view. When such a device is
 * collected, a cleaner unregisters its name.
 */
final class DeviceMXBeans implements RdmaDeviceMXBean {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceMXBeans.class);
    private static final AtomicLong SEQUENCE = new AtomicLong();
    private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

    private final java.lang.ref.WeakReference<RdmaDevice> device;
    private final long id;
    private final String address;

    private DeviceMXBeans(RdmaDevice device, long id) {
        this.device = new java.lang.ref.WeakReference<>(device);
        this.id = id;
        this.address = device.gid().toInetAddress().getHostAddress();
    }

    /** The object name rnic gives device {@code id} at {@code address}. */
    static ObjectName name(String address, long id) throws JMException {
        return new ObjectName("io.rnic:type=RdmaDevice,name=" + ObjectName.quote(address) + ",id=" + id);
    }

    /** Registers {@code device}'s MXBean; the name to unregister at close, or null if it could not be. */
    static ObjectName register(RdmaDevice device) {
        long id = SEQUENCE.incrementAndGet();
        DeviceMXBeans bean = new DeviceMXBeans(device, id);
        try {
            ObjectName name = name(bean.address, id);
            ManagementFactory.getPlatformMBeanServer().registerMBean(bean, name);
            CLEANER.register(device, () -> unregister(name)); // a device collected without close
            return name;
        } catch (JMException | RuntimeException e) {
            LOG.warn("device {} has no JMX view: its MXBean could not be registered", bean.address, e);
            return null;
        }
    }

    /** Unregisters a name {@link #register} returned (null: nothing to do). */
    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException | RuntimeException e) {
            LOG.debug("MXBean {} was already unregistered", name, e);
        }
    }

    private RdmaDevice device() {
        RdmaDevice d = device.get();
        if (d == null) {
            throw new IllegalStateException("device " + address + " (id " + id + ") was dropped without being closed");
        }
        return d;
    }

    @Override
    public String getAddress() {
        return address;
    }

    @Override
    public long getId() {
        return id;
    }

    @Override
    public Map<String, Long> getCounters() {
        return new TreeMap<>(device().counters().snapshot());
    }

    @Override
    public Map<String, Long> getPitfallCounts() {
        Map<String, Long> counts = new TreeMap<>();
        for (Pitfall p : Pitfall.values()) {
            counts.put(p.code(), device().pitfallCount(p));
        }
        return counts;
    }

    @Override
    public String[] getResourceKinds() {
        return device().resources().tables().stream().map(ResourceTable::kind).toArray(String[]::new);
    }

    @Override
    public String getResourceSummary() {
        return device().resources().summary();
    }

    @Override
    public String getResourcesText() {
        return device().resources().toString();
    }

    @Override
    public String getResourcesJson() {
        return device().resources().toJson();
    }

    @Override
    public String[][] resourceTable(String kind) {
        ResourceTable t = device().resources().table(kind);
        String[][] out = new String[t.size() + 1][];
        out[0] = t.columns().toArray(String[]::new);
        for (int r = 0; r < t.size(); r++) {
            List<Object> row = t.rows().get(r);
            out[r + 1] = row.stream().map(ResourceTable::text).toArray(String[]::new);
        }
        return out;
    }
}
