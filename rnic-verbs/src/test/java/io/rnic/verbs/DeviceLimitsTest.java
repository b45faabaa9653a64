package io.rnic.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rnic.core.hca.HcaLimits;
import io.rnic.transport.sim.SimNetwork;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code queryDevice} advertises is what the device enforces (issue 39, defect 9):
 * {@code max_cq}, {@code max_pd}, {@code max_srq} and {@code max_ah} are counted per device,
 * the object past the limit is refused with an {@link IllegalStateException} naming the limit
 * (as QPs and memory regions already were), and closing an object gives its place back.
 */
class DeviceLimitsTest {
    private static final int SMALL = 3;

    @Test
    void theDefaultDeviceAdvertisesItsLimitsAndRefusesTheCqAndPdPastThem() {
        try (SimNetwork net = new SimNetwork(91)) {
            RdmaDevice d = RdmaDevice.open(net.attach("10.0.9.1"));
            DeviceAttributes attrs = d.queryDevice();
            assertEquals(HcaLimits.DEFAULT_MAX_OBJECTS, attrs.maxCq());
            assertEquals(HcaLimits.DEFAULT_MAX_OBJECTS, attrs.maxPd());
            assertEquals(HcaLimits.DEFAULT_MAX_OBJECTS, attrs.maxSrq());
            assertEquals(HcaLimits.DEFAULT_MAX_OBJECTS, attrs.maxAh());
            List<CompletionQueue> cqs = new ArrayList<>();
            for (int i = 0; i < attrs.maxCq(); i++) {
                cqs.add(d.createCq(1));
            }
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> d.createCq(1));
            assertTrue(e.getMessage().contains("max_cq") && e.getMessage().contains("65536"), e.getMessage());
            List<ProtectionDomain> pds = new ArrayList<>();
            for (int i = 0; i < attrs.maxPd(); i++) {
                pds.add(d.allocPd());
            }
            e = assertThrows(IllegalStateException.class, d::allocPd);
            assertTrue(e.getMessage().contains("max_pd"), e.getMessage());
            for (CompletionQueue cq : cqs) {
                cq.close();
            }
            for (ProtectionDomain pd : pds) {
                pd.close();
            }
            d.createCq(1).close(); // every place given back
            d.allocPd().close();
            d.close();
        }
    }

    @Test
    void aConfiguredDeviceCountsEachKindOfObjectAndAClosedOneGivesItsPlaceBack() throws Exception {
        try (SimNetwork net = new SimNetwork(92)) {
            RdmaDevice d = RdmaDevice.open(net.attach("10.0.9.2"), DeviceConfig.defaults()
                    .withLimits(HcaLimits.defaults().withMaxObjects(SMALL, SMALL, SMALL, SMALL)));
            DeviceAttributes attrs = d.queryDevice();
            assertEquals(SMALL, attrs.maxCq());
            assertEquals(SMALL, attrs.maxPd());
            assertEquals(SMALL, attrs.maxSrq());
            assertEquals(SMALL, attrs.maxAh());

            List<CompletionQueue> cqs = fill(() -> d.createCq(4), "max_cq");
            CompletionQueue cq = cqs.get(0);
            cqs.get(1).close();
            cqs.get(1).close(); // a second close gives nothing back twice
            CompletionQueue again = d.createCq(4, d.createCompletionChannel());
            assertThrows(IllegalStateException.class, () -> d.createCq(4));

            List<ProtectionDomain> pds = fill(d::allocPd, "max_pd");
            ProtectionDomain pd = pds.get(0);
            pds.get(1).close();
            pds.get(1).close();
            d.allocPd();
            assertThrows(IllegalStateException.class, d::allocPd);

            // Plain and XRC SRQs share max_srq.
            XrcDomain xrcd = d.openXrcd("limits");
            List<SharedReceiveQueue> srqs = new ArrayList<>();
            srqs.add(pd.createSrq(4, 1, 0));
            srqs.add(pd.createXrcSrq(xrcd, cq, 4, 1, 0));
            srqs.add(pd.createSrq(4, 1, 0));
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pd.createSrq(4, 1, 0));
            assertTrue(e.getMessage().contains("max_srq"), e.getMessage());
            e = assertThrows(IllegalStateException.class, () -> pd.createXrcSrq(xrcd, again, 4, 1, 0));
            assertTrue(e.getMessage().contains("max_srq"), e.getMessage());
            srqs.get(1).close();
            srqs.get(1).close();
            pd.createXrcSrq(xrcd, cq, 4, 1, 0);
            assertThrows(IllegalStateException.class, () -> pd.createSrq(4, 1, 0));

            AddressVector av = AddressVector.of(InetAddress.getByName("10.0.9.3"));
            List<AddressHandle> ahs = fill(() -> pd.createAddressHandle(av), "max_ah");
            ahs.get(1).close();
            ahs.get(1).close();
            pd.createAddressHandle(av);
            assertThrows(IllegalStateException.class, () -> pd.createAddressHandle(av));
            d.close();
        }
    }

    /** Creates objects up to the device's limit of {@value #SMALL}, and checks the next is refused, naming the limit. */
    private static <T> List<T> fill(java.util.function.Supplier<T> create, String limit) {
        List<T> made = new ArrayList<>();
        for (int i = 0; i < SMALL; i++) {
            made.add(create.get());
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, create::get);
        assertTrue(e.getMessage().contains(limit) && e.getMessage().contains(String.valueOf(SMALL)), e.getMessage());
        return made;
    }
}
