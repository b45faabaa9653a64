package io.rnic.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rnic.core.memory.AccessResult;
import io.rnic.verbs.WcStatus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AccessStatusesTest {
    @ParameterizedTest(name = "{0}")
    @EnumSource(AccessResult.class)
    void everyFailedLocalKeyCheckCompletesWithLocalProtectionError(AccessResult r) {
        assertEquals(r == AccessResult.OK ? WcStatus.SUCCESS : WcStatus.LOC_PROT_ERR, AccessStatuses.local(r));
    }
}
