package io.rnic.core.packet;

import java.util.Arrays;
import java.util.Objects;

/**
 * Every field of a RoCEv2 packet as a plain mutable value, for building packets in tools and
 * tests and for comparing them. The hot path uses {@link RocePacket}'s flyweights instead. Only
 * the fields of headers the opcode carries are written and read; the others keep their values.
 */
public final class PacketFields {
    private Opcode opcode;
    public boolean solicited;
    public boolean migReq;
    public int pkey = 0xFFFF;
    public boolean fecn;
    public boolean becn;
    public int destQp;
    public boolean ackReq;
    public int psn;
    public long rethVa;
    public int rethRkey;
    public int rethLength;
    public int aethSyndrome;
    public int aethMsn;
    public long atomicVa;
    public int atomicRkey;
    public long atomicSwapAdd;
    public long atomicCompare;
    public long atomicOriginal;
    public int immediate;
    public int invalidateRkey;
    public int dethQkey;
    public int dethSrcQp;
    public int rdethEec;
    public int xrcSrq;
    public int fethSelectivity;
    public int fethPlacement;
    /** SRETH (rnic's extended protocol): its 32 bytes as offset, SSN, key, length, address and reserved. */
    public int srethOffset;
    public int srethSsn;
    public int srethKey;
    public int srethLength;
    public long srethAddress;
    public long srethReserved;
    private byte[] payload = new byte[0];

    public PacketFields opcode(Opcode op) {
        this.opcode = Objects.requireNonNull(op, "opcode");
        return this;
    }

    public Opcode opcode() {
        return opcode;
    }

    public PacketFields payload(byte[] data) {
        this.payload = Objects.requireNonNull(data, "payload").clone();
        return this;
    }

    public byte[] payload() {
        return payload;
    }

    /** Writes the BTH and the fields of the headers {@code p}'s opcode carries. */
    void writeTo(RocePacket p) {
        p.bth().solicited(solicited).migReq(migReq).pkey(pkey).fecn(fecn).becn(becn)
                .destQp(destQp).ackReq(ackReq).psn(psn);
        for (Header h : p.opcode().headers()) {
            switch (h) {
                case RETH -> p.reth().virtualAddress(rethVa).rkey(rethRkey).dmaLength(rethLength);
                case AETH -> p.aeth().syndrome(aethSyndrome).msn(aethMsn);
                case ATOMIC_ETH -> p.atomicEth().virtualAddress(atomicVa).rkey(atomicRkey)
                        .swapAdd(atomicSwapAdd).compare(atomicCompare);
                case ATOMIC_ACK_ETH -> p.atomicAckEth().originalData(atomicOriginal);
                case IMMDT -> p.immDt().immediate(immediate);
                case IETH -> p.ieth().rkey(invalidateRkey);
                case DETH -> p.deth().qkey(dethQkey).srcQp(dethSrcQp);
                case RDETH -> p.rdeth().eeContext(rdethEec);
                case XRCETH -> p.xrcEth().xrcSrq(xrcSrq);
                case FETH -> p.feth().set(fethSelectivity, fethPlacement);
                case SRETH -> {
                    p.sreth().psnOffset(srethOffset).ssn(srethSsn).key(srethKey).length(srethLength).address(srethAddress);
                    p.buffer().setLong(p.sreth().offset() + 24, srethReserved);
                }
                case CNP_RESERVED -> { }
                default -> throw new IllegalStateException("no codec for " + h);
            }
        }
    }

    /** Reads every field of a decoded packet, including a copy of its payload. */
    public static PacketFields readFrom(RocePacket p) {
        PacketFields f = new PacketFields();
        BthFlyweight b = p.bth();
        f.opcode = p.opcode();
        f.solicited = b.solicited();
        f.migReq = b.migReq();
        f.pkey = b.pkey();
        f.fecn = b.fecn();
        f.becn = b.becn();
        f.destQp = b.destQp();
        f.ackReq = b.ackReq();
        f.psn = b.psn();
        for (Header h : p.opcode().headers()) {
            switch (h) {
                case RETH -> {
                    f.rethVa = p.reth().virtualAddress();
                    f.rethRkey = p.reth().rkey();
                    f.rethLength = p.reth().dmaLength();
                }
                case AETH -> {
                    f.aethSyndrome = p.aeth().syndrome();
                    f.aethMsn = p.aeth().msn();
                }
                case ATOMIC_ETH -> {
                    f.atomicVa = p.atomicEth().virtualAddress();
                    f.atomicRkey = p.atomicEth().rkey();
                    f.atomicSwapAdd = p.atomicEth().swapAdd();
                    f.atomicCompare = p.atomicEth().compare();
                }
                case ATOMIC_ACK_ETH -> f.atomicOriginal = p.atomicAckEth().originalData();
                case IMMDT -> f.immediate = p.immDt().immediate();
                case IETH -> f.invalidateRkey = p.ieth().rkey();
                case DETH -> {
                    f.dethQkey = p.deth().qkey();
                    f.dethSrcQp = p.deth().srcQp();
                }
                case RDETH -> f.rdethEec = p.rdeth().eeContext();
                case XRCETH -> f.xrcSrq = p.xrcEth().xrcSrq();
                case FETH -> {
                    f.fethSelectivity = p.feth().selectivity();
                    f.fethPlacement = p.feth().placementType();
                }
                case SRETH -> {
                    f.srethOffset = p.sreth().psnOffset();
                    f.srethSsn = p.sreth().ssn();
                    f.srethKey = p.sreth().key();
                    f.srethLength = p.sreth().length();
                    f.srethAddress = p.sreth().address();
                    f.srethReserved = p.buffer().getLong(p.sreth().offset() + 24);
                }
                case CNP_RESERVED -> { }
                default -> throw new IllegalStateException("no codec for " + h);
            }
        }
        byte[] data = new byte[p.payloadLength()];
        p.buffer().getBytes(p.payloadOffset(), data);
        f.payload = data;
        return f;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof PacketFields)) {
            return false;
        }
        return toString().equals(o.toString()) && Arrays.equals(payload, ((PacketFields) o).payload);
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    /** Every field of the BTH and of the headers the opcode carries. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append(opcode).append(" se=").append(solicited).append(" m=").append(migReq)
                .append(String.format(" pkey=0x%04x", pkey)).append(" fecn=").append(fecn).append(" becn=").append(becn)
                .append(String.format(" qp=0x%06x", destQp)).append(" a=").append(ackReq).append(" psn=").append(psn);
        if (opcode != null) {
            for (Header h : opcode.headers()) {
                switch (h) {
                    case RETH -> sb.append(String.format(" RETH(va=0x%x rkey=0x%08x len=%d)", rethVa, rethRkey, rethLength & 0xFFFFFFFFL));
                    case AETH -> sb.append(String.format(" AETH(0x%02x msn=%d)", aethSyndrome, aethMsn));
                    case ATOMIC_ETH -> sb.append(String.format(" AtomicETH(va=0x%x rkey=0x%08x swap=0x%x cmp=0x%x)",
                            atomicVa, atomicRkey, atomicSwapAdd, atomicCompare));
                    case ATOMIC_ACK_ETH -> sb.append(String.format(" AtomicAckETH(0x%x)", atomicOriginal));
                    case IMMDT -> sb.append(String.format(" ImmDt(0x%08x)", immediate));
                    case IETH -> sb.append(String.format(" IETH(0x%08x)", invalidateRkey));
                    case DETH -> sb.append(String.format(" DETH(qkey=0x%08x src=0x%06x)", dethQkey, dethSrcQp));
                    case RDETH -> sb.append(String.format(" RDETH(eec=0x%06x)", rdethEec));
                    case XRCETH -> sb.append(String.format(" XRCETH(srq=0x%06x)", xrcSrq));
                    case FETH -> sb.append(" FETH(sel=").append(fethSelectivity).append(" plt=").append(fethPlacement).append(')');
                    case SRETH -> sb.append(String.format(" SRETH(off=%d ssn=%d key=0x%08x len=%d va=0x%x resv=0x%x)",
                            srethOffset, srethSsn, srethKey, srethLength & 0xFFFFFFFFL, srethAddress, srethReserved));
                    default -> { }
                }
            }
        }
        sb.append(" payload=").append(payload.length);
        return sb.toString();
    }
}
