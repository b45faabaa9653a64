package io.rnic.core.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProtectionDomainTest {

    @Test
    void useCountFollowsRetainAndRelease() {
        ProtectionDomain pd = new ProtectionDomain(3);
        assertEquals(3, pd.id());
        assertFalse(pd.isInUse());
        pd.retain();
        pd.retain();
        assertEquals(2, pd.useCount());
        pd.release();
        assertTrue(pd.isInUse());
        pd.release();
        assertFalse(pd.isInUse());
    }

    @Test
    void releasingMoreThanRetainedIsAnError() {
        ProtectionDomain pd = new ProtectionDomain(1);
        IllegalStateException x = assertThrows(IllegalStateException.class, pd::release);
        assertTrue(x.getMessage().contains("protection domain 1"), x.getMessage());
    }
}
