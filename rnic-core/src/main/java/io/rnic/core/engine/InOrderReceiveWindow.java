package io.rnic.core.engine;

import io.rnic.core.packet.PseudoHeader;
import io.rnic.core.packet.RocePacket;

/** Go-back-N: nothing ahead of the expected PSN is kept (reference §5.4). Stateless. */
final class InOrderReceiveWindow implements ReceiveWindow {
    static final InOrderReceiveWindow INSTANCE = new InOrderReceiveWindow();

    private InOrderReceiveWindow() {
    }

    @Override
    public boolean ahead(RocePacket p, PseudoHeader ip) {
        return false;
    }

    @Override
    public void drain(PseudoHeader ip) {
    }

    @Override
    public void clear() {
    }

    @Override
    public int held() {
        return 0;
    }
}
